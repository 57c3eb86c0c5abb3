import { MemberStore } from './member-store';
import { DEFAULT_GENERATED_START_ID, type SeedGuild } from './seed';

export type RoleDef = { id: string; name: string; position: number; index: number };

/**
 * One guild: its roles (with @everyone, whose id is the guild's, added when the seed leaves it out),
 * the bot's highest role, and its members. The bot is itself a member holding `botRoleId`, as on the
 * platform, where a bot acts only in guilds it has joined.
 */
export class GuildState {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  readonly roles: readonly RoleDef[];
  readonly botRole: RoleDef;
  readonly members: MemberStore;
  private readonly roleIndex: Map<string, RoleDef>;

  constructor(seed: SeedGuild, botUserId: string) {
    this.id = seed.id;
    this.name = seed.name ?? `Guild ${seed.id}`;
    this.ownerId = seed.ownerId;
    const everyone = seed.roles.some((r) => r.id === seed.id) ? [] : [{ id: seed.id, name: '@everyone', position: 0 }];
    this.roles = [...everyone, ...seed.roles].map((r, index) => ({ id: r.id, name: r.name ?? (r.id === seed.id ? '@everyone' : `role-${r.id}`), position: r.position, index }));
    this.roleIndex = new Map(this.roles.map((r) => [r.id, r]));
    this.botRole = this.requireRole(seed.botRoleId);
    this.members = MemberStore.build(this.roles.length, this.explicitMembers(seed, botUserId), this.generatedRange(seed));
  }

  role(id: string): RoleDef | undefined {
    return this.roleIndex.get(id);
  }

  isEveryone(role: RoleDef): boolean {
    return role.id === this.id;
  }

  /** The platform's hierarchy rule: a bot manages only roles strictly below its highest role. */
  canManage(role: RoleDef): boolean {
    return role.position < this.botRole.position;
  }

  /** Role indexes for ids, without @everyone (every member holds it implicitly, so it is never stored). */
  roleIndexes(ids: readonly string[]): number[] {
    return ids.map((id) => this.requireRole(id)).filter((r) => !this.isEveryone(r)).map((r) => r.index);
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
    const held = out.get(bot) ?? [];
    out.set(bot, this.isEveryone(this.botRole) ? held : [...new Set([...held, this.botRole.index])]);
    return out;
  }

  private generatedRange(seed: SeedGuild) {
    const gen = seed.generateMembers;
    if (!gen || gen.count === 0) return undefined;
    return { start: BigInt(gen.startId ?? DEFAULT_GENERATED_START_ID), count: gen.count, roles: this.roleIndexes(gen.roles ?? []) };
  }
}
