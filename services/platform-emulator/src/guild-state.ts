import { DEFAULT_RULES, type GuildRules, type StoredRules } from './guild-rules';
import { MemberStore } from './member-store';
import { botJoins, DEFAULT_GENERATED_START_ID, type SeedChannel, type SeedGuild, type SeedRole } from './seed';

/**
 * `permissions` is what the platform reports for the role: the seed's, or for the bot's role the
 * invite's once the bot joined through the authorization page. `managed`: integration roles and the
 * bot's own (`botId` set), which nobody can add or remove.
 */
export type RoleDef = {
  id: string;
  name: string;
  position: number;
  index: number;
  permissions: bigint;
  color: number;
  managed: boolean;
  botId?: string;
};
/** Names a seed gave a member; members without one are `user_<id>`. */
export type UserProfile = { username: string; globalName: string | null };

/**
 * One guild: its roles (with @everyone, whose id is the guild's, added when the seed leaves it out),
 * the bot's highest role, and its members. The bot is itself a member holding `botRoleId`, as on the
 * platform, where a bot acts only in guilds it has joined; a guild seeded with `botMember: false` starts
 * without it (joinBot), and the routes refuse the bot's calls there (rules.botInGuild).
 */
export class GuildState {
  readonly id: string;
  readonly name: string;
  /** Changes only by a transfer (EmulatorState.transferOwnership), as on the platform. */
  ownerId: string;
  readonly roles: readonly RoleDef[];
  readonly botRole: RoleDef;
  /** The rules of guild-rules.ts but `botInGuild`, which is the bot's membership. */
  private readonly stored: StoredRules;
  readonly members: MemberStore;
  /** Text channels, in seed order (the platform's old default channel had the guild's id: so does ours). */
  readonly channels: readonly SeedChannel[];
  /** Ids of the members the seed listed one by one (not generated), ascending: who may sign in. */
  readonly seededMemberIds: BigUint64Array;
  private readonly roleIndex: Map<string, RoleDef>;
  /** Only members seeded with a name have an entry, so a million generated members cost nothing here. */
  private readonly profiles = new Map<string, UserProfile>();

  constructor(seed: SeedGuild, botUserId: string) {
    this.id = seed.id;
    this.name = seed.name ?? `Guild ${seed.id}`;
    this.ownerId = seed.ownerId;
    this.channels = seed.channels ?? [{ id: seed.id, name: 'general' }];
    const everyone: SeedRole[] = seed.roles.some((r) => r.id === seed.id)
      ? []
      : [{ id: seed.id, name: '@everyone', position: 0 }];
    // The bot's role has exactly the seed's permissions, as on the platform, where it has the invite's:
    // a correct installation's seed gives it Manage Roles and View Audit Log (CORRECT_BOT_PERMISSIONS).
    // The platform creates it for the bot as an integration role, so it is managed.
    const isBotRole = (id: string) => id === seed.botRoleId && id !== seed.id;
    this.roles = [...everyone, ...seed.roles].map((r, index) => ({
      id: r.id,
      name: r.name ?? (r.id === seed.id ? '@everyone' : `role-${r.id}`),
      position: r.position,
      index,
      permissions: BigInt(r.permissions ?? '0'),
      color: r.color ?? 0,
      managed: r.managed === true || isBotRole(r.id),
      ...(isBotRole(r.id) && { botId: botUserId }),
    }));
    const { botInGuild: _membership, ...stored } = seed.rules ?? {};
    this.stored = { ...DEFAULT_RULES, ...stored };
    this.roleIndex = new Map(this.roles.map((r) => [r.id, r]));
    this.botRole = this.requireRole(seed.botRoleId);
    this.members = MemberStore.build(
      this.roles.length,
      this.explicitMembers(seed, botUserId),
      this.generatedRange(seed),
    );
    const bot = BigInt(botUserId);
    this.seededMemberIds = BigUint64Array.from(
      new Set((seed.members ?? []).map((m) => BigInt(m.userId)).filter((id) => id !== bot)),
    ).sort();
    for (const m of seed.members ?? []) {
      if (m.username !== undefined || m.globalName !== undefined)
        this.profiles.set(m.userId, { username: m.username ?? `user_${m.userId}`, globalName: m.globalName ?? null });
    }
  }

  hasBot(botUserId: string): boolean {
    return this.members.has(BigInt(botUserId));
  }

  rules(botUserId: string): GuildRules {
    return { ...this.stored, botInGuild: this.hasBot(botUserId) };
  }

  /** Changes the stored rules; `botInGuild` is the caller's (joinBot / leaveBot). */
  setRules(patch: Partial<StoredRules>): void {
    for (const key of ['membersIntent', 'mfaRequired', 'ownerMfa'] as const)
      if (patch[key] !== undefined) this.stored[key] = patch[key];
  }

  /** The position of the bot's highest role (0, @everyone's, when it holds none or is not a member). */
  botHighestPosition(botUserId: string): number {
    const roles = this.members.roles(BigInt(botUserId)) ?? [];
    return Math.max(0, ...roles.map((i) => this.roles[i]?.position ?? 0));
  }

  /**
   * The bot leaves, as a kick does: it is no longer a member. Its managed role stays (the platform
   * deletes it and makes a new one on the next invite; keeping it keeps `botRoleId` stable for tests),
   * reserved for the bot. False when it was not a member.
   */
  leaveBot(botUserId: string): boolean {
    return this.members.remove(BigInt(botUserId));
  }

  /**
   * The bot joins: it becomes a member holding `botRole`. Through an invite (`permissions` given, the
   * bot authorization page) the role is the managed role the platform creates on join: the invite's
   * permissions, and a new role's place, the bottom of the list (position 1, just above @everyone; the
   * roles from 1 up move up one), so a freshly added bot manages no role until an admin drags its role
   * above the ones it should manage (moveRole). Without `permissions` (the control API putting a removed
   * bot back) the role keeps its permissions and place. False when the bot is already a member.
   */
  joinBot(botUserId: string, permissions?: bigint): boolean {
    if (this.hasBot(botUserId)) return false;
    if (!this.isEveryone(this.botRole) && permissions !== undefined) {
      this.botRole.permissions = permissions;
      for (const r of this.roles) if (r !== this.botRole && !this.isEveryone(r) && r.position >= 1) r.position += 1;
      this.botRole.position = 1;
    }
    return this.members.insert(BigInt(botUserId), this.isEveryone(this.botRole) ? [] : [this.botRole.index]);
  }

  /** An admin drags a role in Server Settings → Roles: its new position (equal positions sort by id, as on the platform). */
  moveRole(role: RoleDef, position: number): void {
    if (this.isEveryone(role)) throw new Error('@everyone stays at position 0');
    role.position = position;
  }

  /** The seeded names of a user, if the seed gave any. */
  profile(userId: string): UserProfile | undefined {
    return this.profiles.get(userId);
  }

  isSeededMember(id: bigint): boolean {
    let lo = 0;
    let hi = this.seededMemberIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seededMemberIds[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return this.seededMemberIds[lo] === id;
  }

  /** The @everyone role: every member holds it implicitly. */
  get everyone(): RoleDef {
    return this.requireRole(this.id);
  }

  role(id: string): RoleDef | undefined {
    return this.roleIndex.get(id);
  }

  isEveryone(role: RoleDef): boolean {
    return role.id === this.id;
  }

  /** The platform's hierarchy rule: a bot manages only roles strictly below its highest role, and never a managed one. */
  canManage(role: RoleDef, botUserId: string): boolean {
    return !role.managed && role.position < this.botHighestPosition(botUserId);
  }

  /** Role indexes for ids, without @everyone (every member holds it implicitly, so it is never stored). */
  roleIndexes(ids: readonly string[]): number[] {
    return ids
      .map((id) => this.requireRole(id))
      .filter((r) => !this.isEveryone(r))
      .map((r) => r.index);
  }

  roleIds(indexes: readonly number[]): string[] {
    return indexes.map((i) => this.roles[i]?.id).filter((id): id is string => id !== undefined);
  }

  private requireRole(id: string): RoleDef {
    const role = this.roleIndex.get(id);
    if (!role) throw new Error(`guild ${this.id} has no role ${id}`);
    return role;
  }

  private explicitMembers(seed: SeedGuild, botUserId: string): Map<bigint, readonly number[]> {
    const out = new Map<bigint, readonly number[]>();
    for (const m of seed.members ?? []) out.set(BigInt(m.userId), this.roleIndexes(m.roles ?? []));
    const bot = BigInt(botUserId);
    if (!botJoins(seed)) {
      out.delete(bot);
      return out;
    }
    const held = out.get(bot) ?? [];
    out.set(bot, this.isEveryone(this.botRole) ? held : [...new Set([...held, this.botRole.index])]);
    return out;
  }

  private generatedRange(seed: SeedGuild) {
    const gen = seed.generateMembers;
    if (!gen || gen.count === 0) return undefined;
    return {
      start: BigInt(gen.startId ?? DEFAULT_GENERATED_START_ID),
      count: gen.count,
      roles: this.roleIndexes(gen.roles ?? []),
    };
  }
}
