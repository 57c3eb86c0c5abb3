import { ROLE_ACCESS_MESSAGES, type RoleAccessProblem } from './role-access';

/**
 * What admins read when the platform refuses the bot (docs/sync-engine.md "When the platform
 * refuses"): one text per cause, each with its fix, shared by the dashboard, `rolelink link show` and the
 * owner's notifications.
 */

/** Why a link's role cannot be changed: a role-access problem, 60003, or a refusal the guild's roles do not explain. */
export type LinkBlockReason = RoleAccessProblem | 'mfa_required' | 'refused';

export const LINK_BLOCK_MESSAGES: Record<LinkBlockReason, string> = {
  ...ROLE_ACCESS_MESSAGES,
  mfa_required:
    'This server requires two-factor authentication for moderation, and the bot application’s owner has none: the owner of the application (Developer Portal → Applications → your app) must enable 2FA on their account.',
  refused:
    'The platform refused to change this role (Missing Permissions) although the server’s roles allow it; check the bot’s role and the server’s settings.',
};

/** The Server Members privileged intent, named as the platform's developer portal names it. */
export const MEMBERS_INTENT_SETTING =
  'Developer Portal → Applications → your app → Bot → Privileged Gateway Intents → Server Members Intent';

export const MEMBERS_INTENT_MESSAGE = `The bot cannot list this server's members: the Server Members intent is off. Turn it on in ${MEMBERS_INTENT_SETTING}. Until then the periodic reconcile is blocked and member counts that need the listing are unavailable.`;

/** Why a count that needs the member listing is not shown (a link's `listing_unavailable`), with the fix: shorter than the banner, it stands beside the count. */
export const MEMBERS_LISTING_COUNT_MESSAGE = `The bot cannot list this server's members: turn on ${MEMBERS_INTENT_SETTING}.`;

export const BOT_NOT_IN_GUILD_MESSAGE =
  'The bot is not in this server (it was removed, or the server is gone): nothing is synced until it is added back. The list is kept and syncing resumes when the bot returns.';

/**
 * What the platform answered to one call, read once (platform-client's `classifyPlatformError`) and told
 * the same way by every surface: link creation, the strip preview, the bot worker, `rolelink doctor` and
 * the dashboard's Check setup. Three families, never mixed up:
 * - a definite refusal (a 4xx with its JSON code): the platform answered, and asking again changes
 *   nothing until someone fixes the cause, so it is never told as "try again";
 * - `server_error`: the platform answered 5xx, a fault on its side: try again;
 * - `no_answer`: nothing came back (a network error, a timeout): try again.
 * `rate_limited` and `limiter_unavailable` are not answers: the call was held back before it was sent.
 */
export type PlatformFailure =
  | { kind: 'rate_limited'; retryAfterMs: number }
  | { kind: 'limiter_unavailable'; retryAfterMs: number }
  /** 10007 Unknown Member: the user is not in the guild (left, or never joined). */
  | { kind: 'not_in_guild' }
  /** 10013 Unknown User: the account no longer exists (deleted). Permanent for that user: never retried. */
  | { kind: 'unknown_user' }
  /**
   * The bot cannot reach the guild at all: 10004 Unknown Guild (the guild is gone, or the bot was removed:
   * the platform answers the same), or 50001 Missing Access on a guild route. Stops everything for the
   * guild, not only the user. On GET /guilds/{id}/members, 50001 also means the Server Members intent is
   * off: callers of the listing tell the two apart with platform-client's `listingRefusal`.
   */
  | { kind: 'guild_unavailable'; code: number }
  /** 60003: the guild requires 2FA for moderation and the bot application's owner has none. */
  | { kind: 'mfa_required' }
  /** 50013 Missing Permissions, or any other 403. */
  | { kind: 'missing_permission' }
  /** 10011 Unknown Role. */
  | { kind: 'unknown_role' }
  /** 401 (40001 Unauthorized, 0): the token is wrong or was reset. */
  | { kind: 'unauthorized' }
  /** The platform answered 5xx. */
  | { kind: 'server_error'; status: number; message: string }
  /** No answer at all: a network error or a timeout. */
  | { kind: 'no_answer'; message: string }
  /** It answered, but not in the shape the product reads (the message names the route and the field). */
  | { kind: 'malformed'; message: string }
  /** Another refusal (a 4xx none of the above names). */
  | { kind: 'failed'; status: number; code: number | null; message: string };

/** The refusals: the platform answered, and only the fix changes the answer. */
export type PlatformRefusal = Extract<
  PlatformFailure,
  {
    kind:
      | 'not_in_guild'
      | 'unknown_user'
      | 'guild_unavailable'
      | 'mfa_required'
      | 'missing_permission'
      | 'unknown_role'
      | 'unauthorized'
      | 'failed';
  }
>;

export function isDefiniteRefusal(f: PlatformFailure): f is PlatformRefusal {
  return (
    f.kind !== 'rate_limited' &&
    f.kind !== 'limiter_unavailable' &&
    f.kind !== 'server_error' &&
    f.kind !== 'no_answer' &&
    f.kind !== 'malformed'
  );
}

/** How the platform's answer is named in a message: status and code as it sent them. */
export function platformAnswerName(f: PlatformFailure): string {
  switch (f.kind) {
    case 'not_in_guild':
      return '404 10007 Unknown Member';
    case 'unknown_user':
      return '404 10013 Unknown User';
    case 'unknown_role':
      return '404 10011 Unknown Role';
    case 'guild_unavailable':
      return f.code === 50001 ? '403 50001 Missing Access' : `404 ${f.code} Unknown Guild`;
    case 'mfa_required':
      return '403 60003 Two factor is required';
    case 'missing_permission':
      return '403 50013 Missing Permissions';
    case 'unauthorized':
      return '401 Unauthorized';
    case 'server_error':
      return `${f.status}`;
    case 'failed':
      return `${f.status}${f.code !== null ? ` ${f.code}` : ''}`;
    case 'malformed':
      return 'in a shape the service cannot read';
    case 'rate_limited':
    case 'limiter_unavailable':
    case 'no_answer':
      return 'nothing';
  }
}

/** What a surface tells about a platform answer: what it means, and the one fix (null: nothing to fix). */
export type PlatformAnswerText = { message: string; fix: string | null; retry: boolean };

export const BOT_TOKEN_FIX =
  'Developer Portal → Applications → your application → Bot → Reset Token; put the new token in PLATFORM_BOT_TOKEN of the bot worker, the dashboard and the CLI, and restart them.';

/**
 * The one text of each answer. `inviteUrl` is the bot's invite for the guild on the configured platform
 * (botInviteUrl), named in the fix when the bot is not in the server.
 */
export function describePlatformFailure(f: PlatformFailure, ctx: { inviteUrl?: string } = {}): PlatformAnswerText {
  const answered = `The chat platform answered ${platformAnswerName(f)}`;
  switch (f.kind) {
    case 'guild_unavailable':
      return {
        message: `${answered}: the bot is not in this server (never added, removed, or the server is gone).`,
        fix: `Someone with Manage Server in that server adds the bot${ctx.inviteUrl ? ` with ${ctx.inviteUrl}` : " (the dashboard's server page → Add the bot, or the invite rolelink doctor <guildId> prints)"}.`,
        retry: false,
      };
    case 'not_in_guild':
      return {
        message: `${answered}: this user is not a member of the server (they left, or never joined).`,
        fix: null,
        retry: false,
      };
    case 'unknown_user':
      return { message: `${answered}: this account was deleted.`, fix: null, retry: false };
    case 'unknown_role':
      return {
        message: `${answered}: ${ROLE_ACCESS_MESSAGES.unknown_role}`,
        fix: 'Delete the link and link a role that exists.',
        retry: false,
      };
    case 'mfa_required':
      return { message: `${answered}.`, fix: LINK_BLOCK_MESSAGES.mfa_required, retry: false };
    case 'missing_permission':
      return {
        message: `${answered}: the bot may not change this role.`,
        fix: `${ROLE_ACCESS_MESSAGES.no_manage_roles} ${ROLE_ACCESS_MESSAGES.above_bot}`,
        retry: false,
      };
    case 'unauthorized':
      return {
        message: `${answered}: the platform refuses the bot's token (it is wrong or was reset).`,
        fix: BOT_TOKEN_FIX,
        retry: false,
      };
    case 'failed':
      return { message: `${answered}: it refused the call (${f.message}).`, fix: null, retry: false };
    case 'server_error':
      return {
        message: `${answered}, a fault on its side; try again in a moment.`,
        fix: 'Try again in a moment; if it persists, check the platform status.',
        retry: true,
      };
    case 'malformed':
      return {
        message: `The chat platform answered in a shape the service cannot read: ${f.message}.`,
        fix: 'Check that PLATFORM_API_URL points at a Discord-compatible API (rolelink doctor names the route and field).',
        retry: false,
      };
    case 'no_answer':
      return {
        message: `The chat platform did not answer (${f.message}); try again in a moment.`,
        fix: 'Try again in a moment; if it persists, check PLATFORM_API_URL and that this host reaches the platform.',
        retry: true,
      };
    case 'rate_limited':
    case 'limiter_unavailable':
      return {
        message: `The bot's calls to the chat platform are held back for another ${Math.ceil(f.retryAfterMs / 1000)} s (${f.kind === 'rate_limited' ? 'its rate limit' : 'the shared rate limiter is unavailable'}); try again then.`,
        fix: null,
        retry: true,
      };
  }
}

/**
 * A platform failure carried to code that does not read the platform client's errors (packages/admin
 * gets its facts through injected readers): platform-client's readers throw it, classified once.
 */
export class PlatformAnswerError extends Error {
  override readonly name = 'PlatformAnswerError';
  constructor(readonly failure: PlatformFailure) {
    super(describePlatformFailure(failure).message);
  }
}

/** The answer an injected reader's error carries; anything else is no answer at all. */
export function platformFailureOf(err: unknown): PlatformFailure {
  if (err instanceof PlatformAnswerError) return err.failure;
  return { kind: 'no_answer', message: err instanceof Error ? err.message : String(err) };
}
