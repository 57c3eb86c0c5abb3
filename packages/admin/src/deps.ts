import type { Db } from '@rolelink/db/client';
import type { BotFacts, GuildRoleFacts, TokenKeyring } from '@rolelink/domain';

/** What the broker must do for link lifecycle (register: @rolelink/broker-client's BrokerClient; deleteConfig: @rolelink/queue's PluginJobs). */
export type PluginCalls = {
  register(linkId: string): Promise<void>;
  /** `afterEvent`: the link's recorded `link.deleted` event, which DELETE /config must not overtake. */
  deleteConfig(input: {
    pluginUrl: string;
    guildId: string;
    roleId: string;
    tokenCiphertext: Buffer;
    afterEvent?: string | null;
  }): Promise<void>;
};

/**
 * Who holds a role on the platform now (implemented over @rolelink/platform-client's readRoleHolders).
 * `membersIntentMissing`: the member listing was refused for want of the Server Members intent.
 */
export type HolderReader = (
  guildId: string,
  roleId: string,
) => Promise<{ exact: boolean; count: number; membersIntentMissing?: boolean; pages(): AsyncIterable<string[]> }>;

/**
 * The bot's effective permissions and hierarchy in a guild, read from the platform now (implemented by
 * @rolelink/platform-client's botGuildFacts): what link creation checks with `roleAccessProblem` and
 * `privilegedPermissions`. Each role carries its name, which a privileged role's consent must repeat.
 */
export type BotFactsReader = (
  guildId: string,
) => Promise<Omit<BotFacts, 'roles'> & { roles: readonly (GuildRoleFacts & { name: string })[] }>;

/** What a strip's preview reads from the platform (implemented by @rolelink/platform-client's guildMemberFacts). */
export type MemberFacts = {
  /** Permission bits of each role of the guild, by id (the @everyone role's id is the guild's). */
  rolePermissions(guildId: string): Promise<Map<string, bigint>>;
  ownerId(guildId: string): Promise<string>;
  /**
   * A member's display name and role ids; null when they are not in the guild (10007). Other failures
   * are thrown as domain's PlatformAnswerError (a deleted account: `unknown_user`).
   */
  member(guildId: string, userId: string): Promise<{ name: string; roles: string[] } | null>;
};

/**
 * Dependencies of the admin operations shared by the dashboard and the CLI. Constructor-style
 * injection: each entry point builds these once from its own environment.
 */
export type AdminDeps = {
  db: Db;
  /** The service key tokens are encrypted under; a function because only link creation needs it. */
  secretKey(): Buffer | TokenKeyring;
  allowPrivatePluginHosts: readonly string[];
  plugin: PluginCalls;
  /** Asks the bot to sync a link (deduplicated; a failure only delays, the outbox covers it). */
  requestSync(linkId: string): Promise<unknown>;
  /** A sync now, waking a link that waits out a back-off (retryClearedCauses); requestSync where absent. */
  wakeSync?(linkId: string): Promise<unknown>;
  /** Absent where no platform is configured: then existing holders are unknown (treated as none). */
  holders?: HolderReader;
  /**
   * Absent where no platform is configured (a CLI without PLATFORM_*): link creation then cannot check
   * whether the bot can manage the role or whether it is privileged (docs/cli.md says so).
   */
  botFacts?: BotFactsReader;
  /** Absent where no platform is configured: a strip's names and lock-out check are then unknown. */
  members?: MemberFacts;
  /**
   * The bot's invite for a guild on the configured platform (domain's botInviteUrl on platformAuthorizeUrl),
   * named in the fix of a refusal that means the bot is not in the server. Absent: the fix names where to find it.
   */
  botInvite?: (guildId: string) => string | Promise<string>;
  /**
   * The bot application's key (`applicationKey` of its token): its bot_application row says whether it
   * can list guild members, which some counts need. Absent where no platform is configured:
   * those counts are then shown as measured.
   */
  appKey?: string;
  /** Who acts, for the audit log (the dashboard's signed-in user per request; the CLI's operator). */
  actor?: AdminActor;
};

/** Who an admin action is recorded as (admin_audit): a platform user through the dashboard, or an operator's CLI. */
export type AdminActor = { id: string | null; name: string; via: 'dashboard' | 'cli' };
