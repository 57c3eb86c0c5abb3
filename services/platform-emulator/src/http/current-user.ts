import type { RequestHandler } from 'express';
import {
  OAuth2Scopes,
  type RESTGetAPICurrentUserGuildsResult,
  type RESTGetAPICurrentUserResult,
} from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import { userGuilds, userProfile } from '../oauth/sign-in-users';
import { callerOf } from './gate';
import { boolQuery, intQuery, snowflake } from './params';
import { missingAccess, unauthorized } from './platform-errors';
import { renderBotUser, renderCurrentUser, renderCurrentUserGuild, renderUser } from './render';

/** GET /users/@me: the bot for the bot token; for a user's bearer token (scope `identify`), that user. */
export function currentUser(state: EmulatorState): RequestHandler {
  return (_req, res) => {
    const caller = callerOf(res);
    if (caller.kind !== 'user') {
      res.json(renderCurrentUser(renderBotUser(state.botUserId)) satisfies RESTGetAPICurrentUserResult);
      return;
    }
    // The platform refuses a token without `identify` here as if it were no token at all.
    if (!caller.grant.scopes.includes(OAuth2Scopes.Identify)) throw unauthorized();
    const id = caller.grant.userId;
    res.json(renderCurrentUser(renderUser(id, userProfile(state, id))) satisfies RESTGetAPICurrentUserResult);
  };
}

/**
 * GET /users/@me/guilds: the caller's guilds by id ascending, with `owner` and the caller's permissions
 * (decimal string). A user token needs the `guilds` scope. Supports the platform's `before`, `after`,
 * `limit` (1..200, default 200) and `with_counts`.
 */
export function currentUserGuilds(state: EmulatorState): RequestHandler {
  return (req, res) => {
    const caller = callerOf(res);
    if (caller.kind === 'user' && !caller.grant.scopes.includes(OAuth2Scopes.Guilds)) throw missingAccess();
    const userId = caller.kind === 'user' ? caller.grant.userId : state.botUserId;
    const limit = intQuery(req.query.limit, 'limit', 1, 200, 200);
    const after = req.query.after === undefined ? undefined : BigInt(snowflake(req.query.after, 'after'));
    const before = req.query.before === undefined ? undefined : BigInt(snowflake(req.query.before, 'before'));
    const withCounts = boolQuery(req.query.with_counts);
    const inRange = userGuilds(state, userId).filter(
      ({ guild }) =>
        (after === undefined || BigInt(guild.id) > after) && (before === undefined || BigInt(guild.id) < before),
    );
    // With only `before`, the page is the guilds just before it, still ascending.
    const page = before !== undefined && after === undefined ? inRange.slice(-limit) : inRange.slice(0, limit);
    res.json(
      page.map(({ guild, owner, permissions }) => ({
        ...renderCurrentUserGuild(guild, owner, permissions),
        ...(withCounts ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
      })) satisfies RESTGetAPICurrentUserGuildsResult,
    );
  };
}
