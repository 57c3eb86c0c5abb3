import type { API } from '@discordjs/core/http-only';
import { GuildMFALevel } from 'discord-api-types/v10';
import type { GuildSetupReport, SetupCheck, SetupCheckId, SetupRoleProblem } from '@rolelink/contracts';
import {
  BOT_TOKEN_FIX,
  botPermissions,
  describePlatformFailure,
  MANAGE_ROLES,
  platformAnswerName,
  type PlatformFailure,
  ROLE_ACCESS_MESSAGES,
  roleAccessProblem,
  type BotFacts,
  type GuildRoleFacts,
  type RoleAccessProblem,
} from '@rolelink/domain';
import { classifyPlatformError } from './errors';
import type { SharedRateLimiter } from './rate-limit/shared-limiter';

/**
 * `rolelink doctor` and the dashboard's "Check setup" (docs/operations.md "Before going live"):
 * whether the configured platform lets the bot do its job, each problem with its exact fix. Two halves,
 * so the rules are unit-tested on plain facts: `read…Facts` asks the platform (through the shared rate
 * limiter, like every bot call), `evaluate…` turns facts into checks. The checks reuse domain's
 * role-access rules (roleAccessProblem, ROLE_ACCESS_MESSAGES): the same verdicts link creation gives.
 */

/**
 * A platform answer as the checks tell it apart: the one classification every surface uses
 * (classifyPlatformError, told by domain's describePlatformFailure), so a 500 is "answered 500" here
 * as everywhere, and only a call that got nothing back "did not answer".
 */
type Failure = PlatformFailure;
const failureOf = classifyPlatformError;

async function attempt<T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; failure: Failure }> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    return { ok: false, failure: failureOf(err) };
  }
}

export type InvalidBudget = Awaited<ReturnType<SharedRateLimiter['invalidBudget']>>;

/** What the bot application's own checks depend on. */
export type AccountFacts = {
  token: { kind: 'valid'; botUserId: string; botName: string } | Failure;
  /** GET /applications/@me: the client id for the invite, and who must have 2FA. Null when it did not answer. */
  application: { id: string; owner: string | null } | null;
  invalid: InvalidBudget;
};

/** A role as the checks name it. */
export type NamedRole = GuildRoleFacts & { name: string };

/**
 * What one guild's checks depend on. `twoFactor` is the answer to a role change that changes nothing
 * (removing a linked role from the bot, which does not hold it): the platform applies the same checks
 * (Manage Roles, hierarchy, the 2FA requirement) as to a real change. Only tried when the server requires
 * 2FA; `untried` when no linked role the bot may manage was there to try it with.
 */
export type GuildFacts =
  | { kind: 'absent'; failure: Failure }
  | { kind: 'unreadable'; failure: Failure }
  | {
      kind: 'present';
      name: string;
      mfaRequired: boolean;
      roles: NamedRole[];
      botRoleIds: string[];
      membersListing: 'ok' | 'missing_intent' | Failure;
      twoFactor:
        'not_required' | 'accepted' | 'owner_needs_2fa' | { untried: true } | { tried: string; failure: Failure };
    };

/** Bot not in the guild, as the platform says it: 404 10004 Unknown Guild on guild routes, 403 50001 Missing Access on others, 10007 for the bot's own member. */
function isAbsent(f: Failure): boolean {
  return f.kind === 'guild_unavailable' || f.kind === 'not_in_guild';
}

export async function readAccountFacts(client: { api: API; limiter: SharedRateLimiter }): Promise<AccountFacts> {
  // Read before any probe of this run, so the count is the services' own.
  const invalid = await client.limiter.invalidBudget();
  // Held calls would wait for their slot (up to the client's maxWaitMs): report the hold instead.
  if (invalid.heldForMs > 0)
    return { token: { kind: 'rate_limited', retryAfterMs: invalid.heldForMs }, application: null, invalid };
  const me = await attempt(() => client.api.users.getCurrent());
  if (!me.ok) return { token: me.failure, application: null, invalid };
  const app = await attempt(() => client.api.applications.getCurrent());
  const owner = app.ok
    ? app.value.team
      ? `the team ${app.value.team.name}'s owner`
      : (app.value.owner?.username ?? null)
    : null;
  return {
    token: { kind: 'valid', botUserId: me.value.id, botName: me.value.username },
    application: app.ok ? { id: app.value.id, owner } : null,
    invalid,
  };
}

const PROBE_REASON = 'rolelink doctor: 2FA check, removes a role the bot does not hold (changes nothing)';

export async function readGuildFacts(
  api: API,
  guildId: string,
  botUserId: string,
  linkedRoleIds: readonly string[],
): Promise<GuildFacts> {
  const guild = await attempt(() => api.guilds.get(guildId));
  if (!guild.ok)
    return isAbsent(guild.failure)
      ? { kind: 'absent', failure: guild.failure }
      : { kind: 'unreadable', failure: guild.failure };
  const bot = await attempt(() => api.guilds.getMember(guildId, botUserId));
  if (!bot.ok)
    return isAbsent(bot.failure)
      ? { kind: 'absent', failure: bot.failure }
      : { kind: 'unreadable', failure: bot.failure };
  const roles = guild.value.roles.map((r) => ({
    id: r.id,
    name: r.name,
    position: r.position,
    permissions: BigInt(r.permissions),
    managed: r.managed,
  }));
  const facts: BotFacts = { guildId, roles, botRoleIds: bot.value.roles };

  // The listing itself (limit 1): the platform refuses it with 50001 without the Server Members intent.
  const listing = await attempt(() => api.guilds.getMembers(guildId, { limit: 1 }));
  const membersListing = listing.ok
    ? 'ok'
    : listing.failure.kind === 'guild_unavailable' && listing.failure.code === 50001
      ? 'missing_intent'
      : listing.failure;

  const mfaRequired = guild.value.mfa_level === GuildMFALevel.Elevated;
  let twoFactor: Extract<GuildFacts, { kind: 'present' }>['twoFactor'] = 'not_required';
  if (mfaRequired) {
    const held = new Set(bot.value.roles);
    const probe = linkedRoleIds.find((id) => !held.has(id) && roleAccessProblem(facts, id) === null);
    if (probe === undefined) twoFactor = { untried: true };
    else {
      const res = await attempt(() =>
        api.guilds.removeRoleFromMember(guildId, botUserId, probe, { reason: PROBE_REASON }),
      );
      twoFactor = res.ok
        ? 'accepted'
        : res.failure.kind === 'mfa_required'
          ? 'owner_needs_2fa'
          : { tried: probe, failure: res.failure };
    }
  }
  return {
    kind: 'present',
    name: guild.value.name,
    mfaRequired,
    roles,
    botRoleIds: bot.value.roles,
    membersListing,
    twoFactor,
  };
}

// ---- evaluation: facts → checks, each problem with its fix ----

const PORTAL_TOKEN_FIX = BOT_TOKEN_FIX;
const PORTAL_INTENT_FIX =
  'Developer Portal → Applications → your application → Bot → Privileged Gateway Intents → switch on SERVER MEMBERS INTENT → Save Changes. (A bot in 100 servers or more must be verified and approved for it.)';
const SERVER_2FA_OFF =
  "or the server's owner turns off Server Settings → Safety Setup → Require 2FA for moderator actions";

/** A failure in a check's sentence: domain's one text of it, without its closing full stop. */
function describeFailure(f: Failure): string {
  if (f.kind === 'rate_limited' || f.kind === 'limiter_unavailable')
    return `the shared rate limiter holds this token's calls for another ${Math.ceil(f.retryAfterMs / 1000)} s`;
  const text = describePlatformFailure(f).message.replace(/[.;] try again in a moment\.$|\.$/, '');
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** A check's fix for a failure nobody can fix by hand: the platform's fault (5xx) or no answer is tried again. */
function retryFix(f: Failure): string {
  return describePlatformFailure(f).fix ?? 'Run the check again in a moment.';
}

/** What each check is called, in the CLI's lines and the dashboard's panel. */
export const SETUP_CHECK_TITLES: Record<SetupCheckId, string> = {
  token: 'Bot token',
  invalid_requests: 'Invalid-request budget',
  bot_in_guild: 'Bot in the server',
  members_intent: 'Server Members intent',
  manage_roles: 'Manage Roles',
  linked_roles: 'Linked roles below the bot',
  two_factor: '2FA requirement',
};
const TITLES = SETUP_CHECK_TITLES;

const check = (
  id: SetupCheck['id'],
  title: string,
  status: SetupCheck['status'],
  detail: string,
  fix: string | null = null,
): SetupCheck => ({ id, title, status, detail, fix });

/** The bot application's own checks: the token and the invalid-request budget. */
export function evaluateAccount(facts: AccountFacts): SetupCheck[] {
  const t = facts.token;
  const token =
    t.kind === 'valid'
      ? check('token', TITLES.token, 'pass', `The platform accepts the token: bot ${t.botName} (${t.botUserId}).`)
      : t.kind === 'unauthorized'
        ? check(
            'token',
            TITLES.token,
            'fail',
            'The platform answers 401 Unauthorized to PLATFORM_BOT_TOKEN: the token is wrong or was reset.',
            PORTAL_TOKEN_FIX,
          )
        : (t.kind === 'rate_limited' || t.kind === 'limiter_unavailable') && facts.invalid.authFailures > 0
          ? check(
              'token',
              TITLES.token,
              'fail',
              `The platform answered 401 Unauthorized ${facts.invalid.authFailures} time${facts.invalid.authFailures > 1 ? 's' : ''} in the last ${Math.round(facts.invalid.windowMs / 60_000)} minutes: the token is wrong or was reset, and the shared limiter holds this token's calls for another ${Math.ceil(t.retryAfterMs / 1000)} s.`,
              PORTAL_TOKEN_FIX,
            )
          : t.kind === 'rate_limited' || t.kind === 'limiter_unavailable'
            ? check(
                'token',
                TITLES.token,
                'fail',
                `Nothing could be asked: ${describeFailure(t)} (after 401s, a spent invalid-request budget or a global 429).`,
                `Wait ${Math.ceil(t.retryAfterMs / 1000)} s and run the check again; if it repeats, see the invalid-request budget below.`,
              )
            : check(
                'token',
                TITLES.token,
                'fail',
                `GET /users/@me failed: ${describeFailure(t)}.`,
                t.kind === 'no_answer'
                  ? 'Check PLATFORM_API_URL (the platform REST base, e.g. https://discord.com/api) and that this host reaches the platform, then run the check again.'
                  : retryFix(t),
              );

  const { count, budget, windowMs, heldForMs } = facts.invalid;
  const minutes = Math.round(windowMs / 60_000);
  const used = `${count} of the ${budget} invalid requests (401, 403, 429) the shared limiter allows per ${minutes} minutes are spent`;
  const find =
    'Find what the platform refuses in rolelink_platform_invalid_requests_total by status (401: the token; 403: permissions, the intent or a missing bot; 429: limits) and fix it with the checks here (docs/operations.md, RoleLinkNearPlatformBan).';
  const invalid =
    heldForMs > 0 || count >= budget
      ? check(
          'invalid_requests',
          TITLES.invalid_requests,
          'fail',
          `${used}: the shared limiter holds every platform call for another ${Math.ceil(heldForMs / 1000)} s. The platform bans the IP for an hour at 10,000 in 10 minutes.`,
          find,
        )
      : count * 2 >= budget
        ? check(
            'invalid_requests',
            TITLES.invalid_requests,
            'warn',
            `${used} (${budget - count} left): at ${budget} the limiter holds every platform call until the window ends.`,
            find,
          )
        : check('invalid_requests', TITLES.invalid_requests, 'pass', `${used} (${budget - count} left).`);
  return [token, invalid];
}

/** What `linked_roles` says for each problem: domain's message, plus the way out where the message names none. */
function roleFix(problem: RoleAccessProblem, guildId: string, roleId: string): string {
  const message = ROLE_ACCESS_MESSAGES[problem];
  if (problem === 'managed' || problem === 'unknown_role')
    return `${message} Delete the link (the dashboard's link page → Delete, or rolelink link delete ${guildId} ${roleId}) and link a role the bot can manage.`;
  return message;
}

export type GuildCheckInput = {
  guildId: string;
  linkedRoleIds: readonly string[];
  /** The bot's invite for this guild (domain's botInviteUrl), with the application's client id. */
  inviteUrl: string;
  /** Who owns the application (GET /applications/@me), for the 2FA fix; null when unknown. */
  owner: string | null;
};

/** One guild's checks from its facts; every one `skip` when the bot is not there to ask. */
export function evaluateGuild(facts: GuildFacts, input: GuildCheckInput): SetupCheck[] {
  const skip = (id: SetupCheck['id'], title: string, why: string) => check(id, title, 'skip', why);
  if (facts.kind !== 'present') {
    const presence =
      facts.kind === 'absent'
        ? check(
            'bot_in_guild',
            TITLES.bot_in_guild,
            'fail',
            `The platform answers ${platformAnswerName(facts.failure)} for server ${input.guildId}: the bot is not in it (never added, removed, or the server is gone).`,
            `${describePlatformFailure({ kind: 'guild_unavailable', code: 10004 }, { inviteUrl: input.inviteUrl }).fix!.replace(/\.$/, '')} (it asks for Manage Roles, View Channels, Send Messages and View Audit Log).`,
          )
        : check(
            'bot_in_guild',
            TITLES.bot_in_guild,
            'fail',
            `Reading server ${input.guildId} failed: ${describeFailure(facts.failure)}.`,
            retryFix(facts.failure),
          );
    const why = 'Not checked: the bot cannot see this server.';
    return [
      presence,
      skip('members_intent', TITLES.members_intent, why),
      skip('manage_roles', TITLES.manage_roles, why),
      skip('linked_roles', TITLES.linked_roles, why),
      skip('two_factor', TITLES.two_factor, why),
    ];
  }
  const botFacts: BotFacts = { guildId: input.guildId, roles: facts.roles, botRoleIds: facts.botRoleIds };
  const byId = new Map(facts.roles.map((r) => [r.id, r]));
  const botRoleNames = facts.botRoleIds.map((id) => byId.get(id)?.name ?? id);
  const checks: SetupCheck[] = [
    check(
      'bot_in_guild',
      TITLES.bot_in_guild,
      'pass',
      `The bot is a member of ${facts.name}${botRoleNames.length ? `, holding ${botRoleNames.join(', ')}` : ''}.`,
    ),
  ];

  const m = facts.membersListing;
  checks.push(
    m === 'ok'
      ? check('members_intent', TITLES.members_intent, 'pass', "The bot can list the server's members.")
      : m === 'missing_intent'
        ? check(
            'members_intent',
            TITLES.members_intent,
            'fail',
            'Listing members answers 403 50001 Missing Access: the application lacks the Server Members privileged intent, so first syncs, drift repair and the reconcile cannot read who holds a linked role.',
            PORTAL_INTENT_FIX,
          )
        : check(
            'members_intent',
            TITLES.members_intent,
            'fail',
            `Listing members failed: ${describeFailure(m)}.`,
            retryFix(m),
          ),
  );

  const canManage = (botPermissions(botFacts) & MANAGE_ROLES) !== 0n;
  checks.push(
    canManage
      ? check('manage_roles', TITLES.manage_roles, 'pass', "The bot's roles grant Manage Roles.")
      : check(
          'manage_roles',
          TITLES.manage_roles,
          'fail',
          `Neither @everyone nor the bot's roles (${botRoleNames.join(', ') || 'none'}) grant Manage Roles: the platform refuses every role change with 403 50013.`,
          `${ROLE_ACCESS_MESSAGES.no_manage_roles} Or add the bot again with ${input.inviteUrl}, which asks for it.`,
        ),
  );

  const problems: SetupRoleProblem[] = [];
  for (const roleId of input.linkedRoleIds) {
    const problem = roleAccessProblem(botFacts, roleId);
    if (problem)
      problems.push({
        role_id: roleId,
        role_name: byId.get(roleId)?.name ?? null,
        problem,
        fix: roleFix(problem, input.guildId, roleId),
      });
  }
  const n = input.linkedRoleIds.length;
  const linked: SetupCheck =
    n === 0
      ? check(
          'linked_roles',
          TITLES.linked_roles,
          'pass',
          'No role of this server is linked yet; link creation refuses a role the bot cannot manage.',
        )
      : problems.length === 0
        ? check(
            'linked_roles',
            TITLES.linked_roles,
            'pass',
            `The bot can add and remove all ${n} linked role${n > 1 ? 's' : ''}: each is below its highest role and not managed.`,
          )
        : {
            ...check(
              'linked_roles',
              TITLES.linked_roles,
              'fail',
              `The bot cannot add or remove ${problems.length} of ${n} linked role${n > 1 ? 's' : ''}: the platform refuses each change with 403 50013.`,
              [...new Set(problems.map((p) => p.fix))].join(' '),
            ),
            roles: problems,
          };
  checks.push(linked);

  const owner = input.owner
    ? `The application's owner (${input.owner})`
    : "The application's owner (Developer Portal → your application → General Information; for a team, its owner)";
  const ownerFix = `${owner} turns on two-factor authentication: User Settings → My Account → Enable Two-Factor Auth; ${SERVER_2FA_OFF}.`;
  const t = facts.twoFactor;
  checks.push(
    t === 'not_required'
      ? check('two_factor', TITLES.two_factor, 'pass', 'The server does not require 2FA for moderation.')
      : t === 'accepted'
        ? check(
            'two_factor',
            TITLES.two_factor,
            'pass',
            "The server requires 2FA for moderation, and the platform accepted a role change that changes nothing (a linked role removed from the bot, which does not hold it): the application's owner has 2FA.",
          )
        : t === 'owner_needs_2fa'
          ? check(
              'two_factor',
              TITLES.two_factor,
              'fail',
              "The server requires 2FA for moderation, and the platform refuses role changes with 403 60003: the application's owner has no 2FA.",
              ownerFix,
            )
          : 'untried' in t
            ? check(
                'two_factor',
                TITLES.two_factor,
                'warn',
                "The server requires 2FA for moderation. Whether the application's owner has 2FA cannot be read with the bot's token (the platform shows mfa_enabled only to that user), and there was no linked role the bot may manage to try a change that changes nothing. Without it every role change fails with 403 60003.",
                `Make sure: ${ownerFix}`,
              )
            : check(
                'two_factor',
                TITLES.two_factor,
                'fail',
                `A role change that changes nothing (removing role ${t.tried} from the bot) failed: ${describeFailure(t.failure)}.`,
                'See the Manage Roles and linked roles checks; run the check again.',
              ),
  );
  return checks;
}

/** A guild's report: the account's checks first (the same for every guild), then the guild's. */
export function guildReport(guildId: string, account: SetupCheck[], guild: SetupCheck[]): GuildSetupReport {
  const checks = [...account, ...guild];
  return { guild_id: guildId, ok: checks.every((c) => c.status !== 'fail'), checks };
}

/** What the CLI and the dashboard call: the account's facts once, then each guild's report. */
export class SetupChecker {
  private account?: Promise<AccountFacts>;

  constructor(
    private readonly client: { api: API; limiter: SharedRateLimiter },
    /** The bot's invite for a guild, given the application's client id (from GET /applications/@me, else the bot's user id). */
    private readonly invite: (guildId: string, applicationId: string) => string,
  ) {}

  accountFacts(): Promise<AccountFacts> {
    this.account ??= readAccountFacts(this.client);
    return this.account;
  }

  async accountChecks(): Promise<SetupCheck[]> {
    return evaluateAccount(await this.accountFacts());
  }

  /** One guild's own checks (the account's not included); all `skip` when the token check failed. */
  async guildChecks(guildId: string, linkedRoleIds: readonly string[]): Promise<SetupCheck[]> {
    const account = await this.accountFacts();
    if (account.token.kind !== 'valid') {
      const why = 'Not checked: the token check failed.';
      return (['bot_in_guild', 'members_intent', 'manage_roles', 'linked_roles', 'two_factor'] as const).map((id) =>
        check(id, TITLES[id], 'skip', why),
      );
    }
    const facts = await readGuildFacts(this.client.api, guildId, account.token.botUserId, linkedRoleIds);
    const applicationId = account.application?.id ?? account.token.botUserId;
    return evaluateGuild(facts, {
      guildId,
      linkedRoleIds,
      inviteUrl: this.invite(guildId, applicationId),
      owner: account.application?.owner ?? null,
    });
  }

  /** A guild's whole report, the account's checks first (the dashboard's panel). */
  async guild(guildId: string, linkedRoleIds: readonly string[]): Promise<GuildSetupReport> {
    const [account, guild] = [await this.accountChecks(), await this.guildChecks(guildId, linkedRoleIds)];
    return guildReport(guildId, account, guild);
  }

  /**
   * `rolelink doctor`'s report: the account's checks once, then each guild's own (as `guild` gives the
   * dashboard, without repeating the account's), from the same facts and the same evaluation, so the two
   * cannot tell one setup differently. `ok` when no check of the whole report fails.
   */
  async report(guilds: readonly { guildId: string; linkedRoleIds: readonly string[] }[]): Promise<SetupReport> {
    const checks = await this.accountChecks();
    const reports: GuildSetupReport[] = [];
    for (const g of guilds) {
      const own = await this.guildChecks(g.guildId, g.linkedRoleIds);
      reports.push({ guild_id: g.guildId, ok: own.every((c) => c.status !== 'fail'), checks: own });
    }
    const ok = [...checks, ...reports.flatMap((g) => g.checks)].every((c) => c.status !== 'fail');
    return { ok, checks, guilds: reports };
  }
}

/** Several guilds' checks with the account's once (`rolelink doctor --json`). */
export type SetupReport = { ok: boolean; checks: SetupCheck[]; guilds: GuildSetupReport[] };
