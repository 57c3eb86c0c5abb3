import { ROLE_ACCESS_MESSAGES, type RoleAccessProblem } from './role-access';

/**
 * What admins read when the platform refuses the bot (issue 34; docs/sync-engine.md "When the platform
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
