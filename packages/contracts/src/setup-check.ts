/**
 * `rolelink doctor` and the dashboard's "Check setup" panel: what each setup check found on the
 * platform and the exact fix. One report shape for both (@rolelink/platform-client's setup-check.ts
 * produces it): the CLI prints it as ✓/✗ lines, the dashboard renders it.
 */

/** Each check, in the order they run and are shown (an earlier failure can make a later one `skip`). */
export const SETUP_CHECK_IDS = [
  'token',
  'invalid_requests',
  'bot_in_guild',
  'members_intent',
  'manage_roles',
  'linked_roles',
  'two_factor',
] as const;
export type SetupCheckId = (typeof SETUP_CHECK_IDS)[number];

/**
 * `fail`: the product cannot work until it is fixed (exit 1); `warn`: works now but needs a look, or could
 * not be verified from the bot's token (said so in `detail`); `skip`: an earlier failure hides the answer.
 */
export type SetupCheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** A linked role the bot cannot add or remove, why (domain's RoleAccessProblem) and its fix. */
export type SetupRoleProblem = { role_id: string; role_name: string | null; problem: string; fix: string };

export type SetupCheck = {
  id: SetupCheckId;
  /** What is checked, e.g. "Server Members intent". */
  title: string;
  status: SetupCheckStatus;
  /** What was found, in a sentence. */
  detail: string;
  /** The exact fix (a portal setting, a Server Settings step, an invite link); null when nothing is to fix. */
  fix: string | null;
  /** `linked_roles` only: each linked role with a problem. */
  roles?: SetupRoleProblem[];
};

/** One guild's checks, the bot application's own (token, invalid-request budget) first. */
export type GuildSetupReport = { guild_id: string; ok: boolean; checks: SetupCheck[] };

/** GET /dashboard-api/guilds/:guildId/setup-check */
export type DashboardSetupCheck = GuildSetupReport & { checked_at: string };
