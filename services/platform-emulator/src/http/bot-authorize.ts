import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import { guildPermissions } from '../permissions';
import { isRegistered, unregistered } from '../oauth/redirect-uris';
import { isSignInUser, signInUsers, userGuilds, userProfile } from '../oauth/sign-in-users';
import type { BotAuthorizeRequest, BotCandidate } from './bot-authorize-page';

/** The scopes a bot authorization may carry here: the emulator has no slash commands, but accepts asking for them. */
const BOT_SCOPES = new Set(['bot', 'applications.commands']);
const MAX_PERMISSIONS = (1n << 64n) - 1n;
const SNOWFLAKE = /^\d{17,20}$/;
/** As on the sign-in page: more buttons than this help nobody. */
const MAX_CANDIDATES = 200;

/** Whether an authorize request is the bot flow (scope contains `bot`) rather than the sign-in one. */
export function isBotAuthorize(source: Record<string, unknown>): boolean {
  const scope = source.scope;
  return typeof scope === 'string' && scope.split(' ').includes('bot');
}

/**
 * A bot authorization's parameters, or what is wrong with them (shown on the error page). As on the
 * platform, response_type and redirect_uri are optional: without redirect_uri the flow ends on a page.
 */
export function botAuthorizeRequest(
  state: EmulatorState,
  source: Record<string, unknown>,
  isRedirectUri: (v: string) => boolean,
): BotAuthorizeRequest | string {
  const clientId = text(source, 'client_id');
  if (!clientId) return 'Missing client_id.';
  if (clientId !== state.oauthClient.clientId)
    return `Unknown client_id "${clientId}": the emulator knows one client, set by EMULATOR_OAUTH_CLIENT_ID.`;
  const scopes = [...new Set((text(source, 'scope') ?? '').split(' ').filter(Boolean))];
  const other = scopes.filter((s) => !BOT_SCOPES.has(s));
  if (other.length)
    return `Unsupported scope with bot: ${other.join(', ')}. The emulator's bot authorization takes scope=bot (optionally applications.commands); sign users in with a separate request.`;
  const rawPermissions = text(source, 'permissions') ?? '0';
  if (!/^\d{1,20}$/.test(rawPermissions) || BigInt(rawPermissions) > MAX_PERMISSIONS)
    return `Invalid permissions "${rawPermissions}": a decimal permission bitfield (64 bits at most).`;
  const guildId = text(source, 'guild_id') || undefined;
  if (guildId !== undefined) {
    if (!SNOWFLAKE.test(guildId)) return `Invalid guild_id "${guildId}": a guild id (snowflake).`;
    if (!state.guild(guildId)) return `Unknown guild_id "${guildId}".`;
  }
  const disable = text(source, 'disable_guild_select');
  if (disable !== undefined && disable !== 'true' && disable !== 'false')
    return `Invalid disable_guild_select "${disable}": true or false.`;
  if (disable === 'true' && guildId === undefined) return 'disable_guild_select=true needs a guild_id.';
  const redirectUri = text(source, 'redirect_uri') || undefined;
  if (redirectUri !== undefined && !isRedirectUri(redirectUri))
    return `Invalid redirect_uri "${redirectUri}": it must be an absolute http or https URL without a fragment.`;
  if (redirectUri !== undefined && !isRegistered(state, redirectUri)) return unregistered(redirectUri);
  const oauthState = text(source, 'state') || undefined;
  return {
    clientId,
    scopes,
    permissions: BigInt(rawPermissions),
    disableGuildSelect: disable === 'true',
    ...(guildId === undefined ? {} : { guildId }),
    ...(redirectUri === undefined ? {} : { redirectUri }),
    ...(oauthState === undefined ? {} : { state: oauthState }),
  };
}

/**
 * Who may add the bot where: each sign-in user × each guild they own or hold Manage Server (or
 * Administrator) in and the bot has not joined; only the requested guild when the request names one
 * with disable_guild_select (the platform's locked picker). With a guild_id alone it is listed first.
 */
export function botCandidates(state: EmulatorState, request: BotAuthorizeRequest): BotCandidate[] {
  const out: BotCandidate[] = [];
  for (const user of signInUsers(state, MAX_CANDIDATES).users) {
    const name = user.globalName === null ? user.username : `${user.globalName} (@${user.username})`;
    for (const { guild, owner, permissions } of userGuilds(state, user.id)) {
      if (!canAdd(permissions) || guild.hasBot(state.botUserId)) continue;
      if (request.disableGuildSelect && guild.id !== request.guildId) continue;
      out.push({ userId: user.id, userName: name, guildId: guild.id, guildName: guild.name, owner });
    }
  }
  const first = request.guildId;
  return first === undefined
    ? out
    : [...out.filter((c) => c.guildId === first), ...out.filter((c) => c.guildId !== first)];
}

/** The chosen button's `user:guild`, checked against the request; a message when it does not fit. */
export function botChoice(
  state: EmulatorState,
  request: BotAuthorizeRequest,
  choice: string | undefined,
): { userId: string; guildId: string } | string {
  const m = /^(\d{1,20}):(\d{1,20})$/.exec(choice ?? '');
  if (!m) return `Missing or malformed choice "${choice ?? ''}": choose a user and server on the page.`;
  const userId = m[1]!;
  const guildId = m[2]!;
  if (request.disableGuildSelect && guildId !== request.guildId)
    return `This request adds the bot to guild ${request.guildId ?? ''} only.`;
  const guild = state.guild(guildId);
  if (!guild) return `Unknown guild ${guildId}.`;
  const permissions = guildPermissions(guild, userId);
  if (!isSignInUser(state, userId)) return `Unknown user_id "${userId}": choose one of the users listed on the page.`;
  if (permissions === undefined) return `User ${userId} is not in guild ${guildId}.`;
  if (!canAdd(permissions))
    return `User ${userProfile(state, userId).username} cannot add the bot to ${guild.name}: it needs Manage Server there (or ownership).`;
  if (guild.hasBot(state.botUserId)) return `The bot is already in ${guild.name}.`;
  return { userId, guildId };
}

function canAdd(permissions: bigint): boolean {
  return (permissions & (PermissionFlagsBits.ManageGuild | PermissionFlagsBits.Administrator)) !== 0n;
}

function text(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  return typeof value === 'string' ? value : undefined;
}
