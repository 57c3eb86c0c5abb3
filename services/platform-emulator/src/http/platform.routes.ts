import express, { Router, type Request, type RequestHandler } from 'express';
import {
  ChannelType,
  MessageType,
  type ChannelFlags,
  type MessageFlags,
  type RESTPostAPIChannelMessageResult,
  type APIDMChannel,
  type APIMessage,
  type APITextChannel,
  type RESTGetAPIGuildChannelsResult,
} from 'discord-api-types/v10';
import type {
  RESTGetAPIUserResult,
  RESTPostAPICurrentUserCreateDMChannelResult,
  RESTPatchAPIGuildMemberResult,
  RESTGetAPIGuildMemberResult,
  RESTGetAPIGuildMembersQuery,
  RESTGetAPIGuildMembersResult,
  RESTGetAPIGuildResult,
  RESTGetAPIGuildRoleMemberCountsResult,
  RESTGetAPIGuildRolesResult,
} from 'discord-api-types/v10';
import { decodeReason } from '../audit-log';
import { currentApplication } from './application';
import { auditLogsHandler } from './audit-logs';
import type { EmulatorState } from '../emulator-state';
import type { RoleDef } from '../guild-state';
import type { BucketKind } from '../rate-limits';
import { currentUser, currentUserGuilds } from './current-user';
import { userProfile } from '../oauth/sign-in-users';
import { countInvalid, gate, type AuthScheme } from './gate';
import { tokenHandler } from './oauth-token';
import { boolQuery, guildOf, intQuery, memberOf, pathSnowflake, snowflake } from './params';
import {
  cannotSendToUser,
  invalidFormBody,
  missingAccess,
  noMutualGuilds,
  routeNotFound,
  unknownChannel,
  unknownRole,
  unknownUser,
} from './platform-errors';
import { renderBotUser, renderGuild, renderMember, renderRole, renderUser } from './render';
import { memberRolesRefusal, roleChangeRefusal } from '../role-change-rules';

/** Bit-flag enums have no zero member; "no flags" is 0 on the wire. */
const NO_CHANNEL_FLAGS = 0 as ChannelFlags;
const NO_MESSAGE_FLAGS = 0 as MessageFlags;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type RouteOptions = { aliases?: string[]; auth?: readonly AuthScheme[] | 'none' };
const BOT_OR_USER: readonly AuthScheme[] = ['bot', 'bearer'];

/** The platform REST subset under /api/v10, each route behind the limiter. */
export function platformRouter(state: EmulatorState): Router {
  const router = Router();
  const route = (
    method: Method,
    path: string,
    kind: BucketKind,
    handlers: RequestHandler | RequestHandler[],
    options: RouteOptions = {},
  ) => {
    const major = path.startsWith('/guilds/:guildId')
      ? 'guildId'
      : path.startsWith('/channels/:channelId')
        ? 'channelId'
        : undefined;
    const spec = {
      name: `${method.toUpperCase()} ${path}`,
      kind,
      major,
      ...(options.auth ? { auth: options.auth } : {}),
    };
    router[method]([path, ...(options.aliases ?? [])], gate(state, spec), ...[handlers].flat());
  };

  // discord.js sends `@me` percent-encoded; the platform takes both spellings. A signed-in user's
  // bearer token works here too (OAuth2 sign-in), and is limited on its own windows.
  route('get', '/users/@me', 'route', currentUser(state), { aliases: ['/users/%40me'], auth: BOT_OR_USER });
  route('get', '/users/@me/guilds', 'route', currentUserGuilds(state), {
    aliases: ['/users/%40me/guilds'],
    auth: BOT_OR_USER,
  });
  route('get', '/applications/@me', 'route', currentApplication(state), { aliases: ['/applications/%40me'] });
  // The client authenticates in the body (or HTTP Basic), not with a token.
  route(
    'post',
    '/oauth2/token',
    'route',
    [express.urlencoded({ extended: false, limit: '16kb' }), tokenHandler(state)],
    { auth: 'none' },
  );

  // Any account by id; 404 10013 for an id no account has, or a deleted one.
  route('get', '/users/:userId', 'route', (req, res) => {
    const userId = pathSnowflake(req, 'userId', 'user_id');
    if (!state.knowsUser(userId)) throw unknownUser();
    res.json(
      (userId === state.botUserId
        ? renderBotUser(userId)
        : renderUser(userId, userProfile(state, userId))) satisfies RESTGetAPIUserResult,
    );
  });

  route('get', '/guilds/:guildId', 'route', (req, res) => {
    res.json(
      renderGuild(
        guildOf(state, req, 'unknown_guild'),
        boolQuery(req.query.with_counts),
        state.botUserId,
      ) satisfies RESTGetAPIGuildResult,
    );
  });

  route('get', '/guilds/:guildId/roles', 'route', (req, res) => {
    const guild = guildOf(state, req);
    res.json(guild.roles.map(renderRole) satisfies RESTGetAPIGuildRolesResult);
  });

  route('get', '/guilds/:guildId/roles/member-counts', 'route', (req, res) => {
    const guild = guildOf(state, req);
    const counts: RESTGetAPIGuildRoleMemberCountsResult = {};
    for (const role of guild.roles) if (!guild.isEveryone(role)) counts[role.id] = guild.members.count(role.index);
    res.json(counts satisfies RESTGetAPIGuildRoleMemberCountsResult);
  });

  // Ordered by user id ascending; `after` is exclusive, as on the platform.
  // Needs the Server Members privileged intent (docs: resources/guild, List Guild Members).
  route('get', '/guilds/:guildId/members', 'route', (req, res) => {
    const guild = guildOf(state, req);
    if (!guild.rules(state.botUserId).membersIntent) throw missingAccess();
    const query: RESTGetAPIGuildMembersQuery = {
      limit: intQuery(req.query.limit, 'limit', 1, 1000, 1),
      after: req.query.after === undefined ? '0' : snowflake(req.query.after, 'after'),
    };
    const page = guild.members.page(BigInt(query.after ?? '0'), query.limit ?? 1);
    res.json(page.map((m) => renderMember(guild, m, state.botUserId)) satisfies RESTGetAPIGuildMembersResult);
  });

  route('get', '/guilds/:guildId/members/:userId', 'route', (req, res) => {
    const guild = guildOf(state, req);
    const { userId, roles } = memberOf(state, guild, req);
    res.json(renderMember(guild, { id: BigInt(userId), roles }, state.botUserId) satisfies RESTGetAPIGuildMemberResult);
  });

  // Drift repair reads what changed: member role updates, by the bot and by hand.
  route('get', '/guilds/:guildId/audit-logs', 'route', auditLogsHandler(state));

  // Text channels only: the emulator has no voice, category or thread channels.
  route('get', '/guilds/:guildId/channels', 'route', (req, res) => {
    const guild = guildOf(state, req);
    res.json(
      guild.channels.map((c, position) => textChannel(guild.id, c, position)) satisfies RESTGetAPIGuildChannelsResult,
    );
  });

  // Notifications: the bot opens a DM with a user, then posts to it or to a guild channel.
  route(
    'post',
    '/users/@me/channels',
    'route',
    [
      express.json({ limit: '16kb' }),
      (req, res) => {
        const recipient = snowflake(bodyField(req, 'recipient_id'), 'recipient_id');
        if (!state.knowsUser(recipient))
          throw invalidFormBody('recipient_id', 'NUMBER_TYPE_COERCE', `Value "${recipient}" is not a known user.`);
        const dm: APIDMChannel = {
          id: state.dmChannel(recipient),
          type: ChannelType.DM,
          name: null,
          last_message_id: null,
          flags: NO_CHANNEL_FLAGS,
          recipients: [renderUser(recipient, userProfile(state, recipient))],
        };
        res.json(dm satisfies RESTPostAPICurrentUserCreateDMChannelResult);
      },
    ],
    { aliases: ['/users/%40me/channels'] },
  );

  route('post', '/channels/:channelId/messages', 'route', [
    express.json({ limit: '64kb' }),
    (req, res) => {
      const channelId = pathSnowflake(req, 'channelId', 'channel_id');
      const target = state.channel(channelId);
      if (!target) throw unknownChannel();
      if (target.kind === 'guild' && !state.guild(target.guildId)?.hasBot(state.botUserId)) throw missingAccess();
      if (target.kind === 'dm' && !state.knowsUser(target.recipientId)) throw unknownUser();
      const refusal = target.kind === 'dm' ? state.dmRefusal(target.recipientId) : undefined;
      if (refusal === 'no mutual guild') throw noMutualGuilds();
      if (refusal === 'closed') throw cannotSendToUser();
      const content = bodyField(req, 'content');
      if (typeof content !== 'string' || content.length === 0)
        throw invalidFormBody('content', 'BASE_TYPE_REQUIRED', 'This field is required');
      if (content.length > 2000)
        throw invalidFormBody('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
      const m = state.postMessage(channelId, content);
      // The whole message object (`MessageResponse`): a plain default message by the bot, nothing attached.
      const sent: APIMessage = {
        id: m.id,
        type: MessageType.Default,
        channel_id: channelId,
        content,
        timestamp: m.at,
        edited_timestamp: null,
        author: renderBotUser(state.botUserId),
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: [],
        embeds: [],
        components: [],
        pinned: false,
        flags: NO_MESSAGE_FLAGS,
      };
      res.json(sent satisfies RESTPostAPIChannelMessageResult);
    },
  ]);

  const roleChange =
    (op: 'add' | 'remove'): RequestHandler =>
    (req, res) => {
      const guild = guildOf(state, req);
      const { userId } = memberOf(state, guild, req);
      const role = guild.role(pathSnowflake(req, 'roleId', 'role_id'));
      if (!role) throw unknownRole();
      const refusal = roleChangeRefusal(guild, role, state.botUserId);
      if (refusal) throw refusal;
      state.changeRole(guild, userId, role, op, decodeReason(req.get('x-audit-log-reason')));
      res.status(204).end();
    };
  // Modify Guild Member, its `roles` only (the other fields are not modelled): the whole list at once. Every
  // role it adds or removes meets the checks of the single-role routes; nothing changes when one fails.
  route('patch', '/guilds/:guildId/members/:userId', 'route', [
    express.json({ limit: '64kb' }),
    (req, res) => {
      const guild = guildOf(state, req);
      const { userId, roles: held } = memberOf(state, guild, req);
      const raw = bodyField(req, 'roles');
      if (raw !== undefined) {
        if (!Array.isArray(raw)) throw invalidFormBody('roles', 'BASE_TYPE_ARRAY', 'Must be an array.');
        const wanted = new Set(raw.map((id, i) => snowflake(id, `roles.${i}`)).filter((id) => id !== guild.id));
        const roles = [...wanted].map((id) => guild.role(id));
        if (roles.some((r) => r === undefined)) throw unknownRole();
        const before = new Set(guild.roleIds(held));
        const added = roles.filter((r): r is RoleDef => r !== undefined && !before.has(r.id));
        const removed = [...before].filter((id) => !wanted.has(id)).map((id) => guild.role(id)!);
        const refusal =
          memberRolesRefusal(guild, state.botUserId) ??
          [...added, ...removed].map((r) => roleChangeRefusal(guild, r, state.botUserId)).find((e) => e !== undefined);
        if (refusal) throw refusal;
        state.setRolesByBot(guild, userId, added, removed, decodeReason(req.get('x-audit-log-reason')));
      }
      const roles = guild.members.roles(BigInt(userId)) ?? [];
      res.json(
        renderMember(guild, { id: BigInt(userId), roles }, state.botUserId) satisfies RESTPatchAPIGuildMemberResult,
      );
    },
  ]);

  route('put', '/guilds/:guildId/members/:userId/roles/:roleId', 'roles', roleChange('add'));
  route('delete', '/guilds/:guildId/members/:userId/roles/:roleId', 'roles', roleChange('remove'));

  router.use(gate(state, { name: 'unknown route', kind: 'route', auth: BOT_OR_USER }), () => {
    throw routeNotFound();
  });
  router.use(countInvalid(state));
  return router;
}

function bodyField(req: Request, name: string): unknown {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function textChannel(guildId: string, c: { id: string; name: string }, position: number): APITextChannel {
  return {
    id: c.id,
    type: ChannelType.GuildText,
    guild_id: guildId,
    name: c.name,
    position,
    permission_overwrites: [],
    nsfw: false,
    parent_id: null,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: NO_CHANNEL_FLAGS,
  };
}
