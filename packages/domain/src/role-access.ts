import { ADMINISTRATOR, MANAGE_GUILD, MANAGE_ROLES } from './permissions';

/** The platform's permission bits the bot's access to a role depends on (decimal strings on the wire). */
export const KICK_MEMBERS = 0x2n;
export const BAN_MEMBERS = 0x4n;
export const MANAGE_CHANNELS = 0x10n;
export const MANAGE_MESSAGES = 0x2000n;
export const MENTION_EVERYONE = 0x20000n;
export const MANAGE_WEBHOOKS = 0x20000000n;
export const MODERATE_MEMBERS = 0x10000000000n;

/**
 * The bits that make a role privileged: whoever holds such a role can run or damage the guild,
 * so linking it needs the owner's typed consent and a plugin may not strip a member's last admin source.
 */
export const PRIVILEGED_PERMISSIONS: ReadonlyArray<readonly [bigint, string]> = [
  [ADMINISTRATOR, 'Administrator'],
  [MANAGE_GUILD, 'Manage Server'],
  [MANAGE_ROLES, 'Manage Roles'],
  [MANAGE_CHANNELS, 'Manage Channels'],
  [MANAGE_WEBHOOKS, 'Manage Webhooks'],
  [BAN_MEMBERS, 'Ban Members'],
  [KICK_MEMBERS, 'Kick Members'],
  [MANAGE_MESSAGES, 'Manage Messages'],
  [MENTION_EVERYONE, 'Mention Everyone'],
  [MODERATE_MEMBERS, 'Moderate Members'],
];

/** The names of the privileged permissions a role's bits carry, in the list's order; empty when none. */
export function privilegedPermissions(permissions: bigint): string[] {
  return PRIVILEGED_PERMISSIONS.filter(([bit]) => (permissions & bit) !== 0n).map(([, name]) => name);
}

export function isPrivileged(permissions: bigint): boolean {
  return privilegedPermissions(permissions).length > 0;
}

/** A guild role as the platform lists it (GET /guilds/{id}/roles), permissions parsed. */
export type GuildRoleFacts = { id: string; position: number; permissions: bigint; managed: boolean };

/** What the bot's access to roles depends on: the guild's roles (with @everyone, whose id is the guild's) and the bot member's roles. */
export type BotFacts = { guildId: string; roles: readonly GuildRoleFacts[]; botRoleIds: readonly string[] };

/** Why the bot cannot add or remove a role; each has one fix (docs/sync-engine.md, "The bot's permissions"). */
export type RoleAccessProblem = 'no_manage_roles' | 'above_bot' | 'managed' | 'unknown_role';

export const ROLE_ACCESS_MESSAGES: Record<RoleAccessProblem, string> = {
  no_manage_roles: "The bot lacks Manage Roles: give the bot's role Manage Roles in Server Settings → Roles.",
  above_bot: "The role is not below the bot's highest role: drag the bot's role above it in Server Settings → Roles.",
  managed: 'The role is managed by an integration (a bot or a subscription): the platform lets nobody assign it.',
  unknown_role: 'The role no longer exists in this server.',
};

/**
 * The bot's effective guild permissions as the platform computes them: @everyone's bits OR'ed with those
 * of the bot's roles; Administrator among them means every bit. (The bot is never the owner.)
 */
export function botPermissions(facts: BotFacts): bigint {
  const byId = new Map(facts.roles.map((r) => [r.id, r]));
  let bits = byId.get(facts.guildId)?.permissions ?? 0n;
  for (const id of facts.botRoleIds) bits |= byId.get(id)?.permissions ?? 0n;
  return (bits & ADMINISTRATOR) !== 0n ? ~0n & ((1n << 64n) - 1n) : bits;
}

/** The position of the bot's highest role (0, @everyone's, when it has none). */
export function botTopPosition(facts: BotFacts): number {
  const byId = new Map(facts.roles.map((r) => [r.id, r]));
  return Math.max(0, ...facts.botRoleIds.map((id) => byId.get(id)?.position ?? 0));
}

/**
 * Whether the bot may add and remove `roleId`, by the platform's rules: Manage Roles in its effective
 * permissions (Administrator included), the role strictly below the bot's highest role, and not managed.
 * Null when it may; otherwise the first problem in the order an admin would fix them.
 */
export function roleAccessProblem(facts: BotFacts, roleId: string): RoleAccessProblem | null {
  const role = facts.roles.find((r) => r.id === roleId);
  if (!role || roleId === facts.guildId) return 'unknown_role';
  if (role.managed) return 'managed';
  if ((botPermissions(facts) & MANAGE_ROLES) === 0n) return 'no_manage_roles';
  if (role.position >= botTopPosition(facts)) return 'above_bot';
  return null;
}
