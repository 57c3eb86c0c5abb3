import { PermissionFlagsBits } from 'discord-api-types/v10';
import { AppError } from '@rolelink/runtime';
import { AuditLog, type AuditEntry } from './audit-log';
import { GuildState, type RoleDef } from './guild-state';
import type { GuildRules } from './guild-rules';
import type { ExchangeListener } from './http/exchange-recorder';
import { OAuthStore } from './oauth/oauth-store';
import { guildPermissions } from './permissions';
import { DEFAULT_OPTIONS, type ConfigPatch, type EmulatorConfig, type OAuthClient } from './options';
import { RateLimits } from './rate-limits';
import { parseSeed, type EmulatorSeed } from './seed';
import { StatsCounters, type EmulatorStats } from './stats';

/** A message the bot sent: to a DM channel (recipientId) or a guild's text channel (guildId). */
export type SentMessage = {
  id: string;
  channelId: string;
  recipientId: string | null;
  guildId: string | null;
  content: string;
  at: string;
};

export type EmulatorStateOptions = {
  botToken: string;
  botUserId: string;
  config: EmulatorConfig;
  /** Default `DEFAULT_OPTIONS.oauth`. */
  oauth?: OAuthClient;
  /** Clock in epoch milliseconds; tests of window arithmetic inject their own. */
  now?: () => number;
};

/**
 * Everything the emulator knows: guilds, limits, counters and the audit log. The HTTP layer and tests
 * (in-process, through `RunningEmulator.state`) use the same methods. Errors are `AppError`s with the
 * control API's meaning (404 unknown guild or member, 400 unknown role, 409 member exists).
 */
export class EmulatorState {
  readonly botToken: string;
  readonly botUserId: string;
  readonly limits: RateLimits;
  readonly counters = new StatsCounters();
  readonly audit: AuditLog;
  readonly now: () => number;
  readonly oauthClient: Required<OAuthClient>;
  /** Codes and tokens of users signed in through the OAuth2 flow. */
  readonly oauth: OAuthStore;
  /** Who hears of every platform API call (`onExchange`): conformance tests record the wire. */
  readonly exchangeListeners = new Set<ExchangeListener>();
  private cfg: EmulatorConfig;
  private readonly guilds = new Map<string, GuildState>();
  /** Messages the bot sent (DMs and guild channels), oldest first: tests read them here. */
  readonly messages: SentMessage[] = [];
  /** DM channel id per recipient: POST /users/@me/channels answers the same channel every time, as the platform does. */
  private readonly dmChannels = new Map<string, string>();
  /** The other way round (channel id → recipient), so a post finds its channel without a scan. */
  private readonly dmRecipients = new Map<string, string>();
  /** Users who turned DMs off (the platform's privacy setting): posts to their DM channel answer 403 50007. */
  private readonly dmsClosed = new Set<string>();
  private nextChannelId = 800000000000000000n;
  /** Accounts that exist without being in a guild now: seeds' `users`, and members who left or were removed. */
  private readonly knownUsers = new Set<string>();
  /** Accounts deleted through DELETE /_emulator/users/:u: 404 10013 Unknown User from then on. */
  private readonly deletedUsers = new Set<string>();

  constructor(options: EmulatorStateOptions) {
    this.botToken = options.botToken;
    this.botUserId = options.botUserId;
    this.cfg = structuredClone(options.config);
    this.now = options.now ?? Date.now;
    this.audit = new AuditLog(this.now);
    this.limits = new RateLimits(() => this.cfg);
    const client = options.oauth ?? DEFAULT_OPTIONS.oauth;
    // The platform's client id is the application's id: a snowflake, which GET /applications/@me answers.
    if (!/^\d{17,20}$/.test(client.clientId))
      throw new Error(
        `The OAuth2 client id "${client.clientId}" is not a snowflake: the platform's application ids are.`,
      );
    this.oauthClient = {
      ...client,
      redirectUris: [...(client.redirectUris ?? DEFAULT_OPTIONS.oauth.redirectUris)],
    };
    this.oauth = new OAuthStore(this.now);
  }

  /**
   * Registers one more redirect URI for the OAuth2 client (the portal's OAuth2 → Redirects → Add), for a
   * harness that learns its dashboard's address only after the emulator is up.
   */
  registerRedirectUri(uri: string): void {
    if (!this.oauthClient.redirectUris.includes(uri)) this.oauthClient.redirectUris.push(uri);
  }

  /** Reports every platform API call (request and answer) to `listener` until the returned function is called. */
  onExchange(listener: ExchangeListener): () => void {
    this.exchangeListeners.add(listener);
    return () => this.exchangeListeners.delete(listener);
  }

  get config(): EmulatorConfig {
    return structuredClone(this.cfg);
  }

  get latencyMs(): number {
    return this.cfg.latencyMs;
  }

  /** Changes limits at run time; buckets of a changed kind restart so the new limit applies at once. */
  configure(patch: ConfigPatch): EmulatorConfig {
    this.cfg = { ...this.cfg, ...structuredClone(patch) };
    if (patch.globalPerSecond !== undefined) this.limits.dropBuckets('global');
    if (patch.roleBucket) this.limits.dropBuckets('roles');
    if (patch.routeBucket) this.limits.dropBuckets('route');
    return this.config;
  }

  /** Adds the seed's guilds, replacing any with the same id. */
  seed(seed: EmulatorSeed): { id: string; members: number }[] {
    const parsed = parseSeed(seed);
    const built = parsed.guilds.map((g) => new GuildState(g, this.botUserId));
    for (const g of built) this.guilds.set(g.id, g);
    // A seed describes accounts that exist: one it lists (a deleted one included) exists again.
    const listed = [
      ...(parsed.users ?? []),
      ...parsed.guilds.flatMap((g) => [...(g.users ?? []), g.ownerId, ...(g.members ?? []).map((m) => m.userId)]),
    ];
    for (const id of parsed.users ?? []) this.knownUsers.add(id);
    for (const g of parsed.guilds) for (const id of g.users ?? []) this.knownUsers.add(id);
    for (const id of listed) this.deletedUsers.delete(id);
    for (const id of [...this.deletedUsers])
      if (built.some((g) => g.members.has(BigInt(id)))) this.deletedUsers.delete(id);
    return built.map((g) => ({ id: g.id, members: g.members.size }));
  }

  /** Empty state: no guilds, codes or tokens; counters, buckets, invalid-request window and ban cleared; config kept. */
  reset(): void {
    this.guilds.clear();
    this.oauth.clear();
    this.limits.reset();
    this.counters.reset();
    this.audit.clear();
    this.messages.length = 0;
    this.dmChannels.clear();
    this.dmRecipients.clear();
    this.dmsClosed.clear();
    this.knownUsers.clear();
    this.deletedUsers.clear();
  }

  /**
   * Whether the account exists (a DM can be opened, member routes answer 10007 rather than 10013 when
   * it is not in the guild): the bot, guild owners, members of any guild, seeds' `users`, members who
   * left; never a deleted account.
   */
  knowsUser(userId: string): boolean {
    if (this.deletedUsers.has(userId)) return false;
    if (userId === this.botUserId || this.knownUsers.has(userId)) return true;
    const id = BigInt(userId);
    return this.allGuilds().some((g) => g.members.has(id) || g.ownerId === userId);
  }

  /**
   * Deletes the account: it leaves every guild, and user and member routes answer 404 10013 Unknown
   * User for it. 404 when no such account exists; 409 for the bot or a guild's owner (the platform
   * makes an owner transfer their guilds before deleting the account).
   */
  deleteUser(userId: string): void {
    if (!this.knowsUser(userId)) throw AppError.notFound(`Unknown user ${userId}`);
    if (userId === this.botUserId)
      throw new AppError(
        409,
        'The bot user cannot be deleted: remove the bot from a guild with PATCH /_emulator/guilds/:g/rules { botInGuild: false }',
        'conflict',
      );
    const owned = this.allGuilds().filter((g) => g.ownerId === userId);
    if (owned.length)
      throw new AppError(
        409,
        `User ${userId} owns guild(s) ${owned.map((g) => g.id).join(', ')}: the platform deletes no account that owns a guild`,
        'conflict',
      );
    for (const g of this.allGuilds()) g.members.remove(BigInt(userId));
    this.knownUsers.delete(userId);
    this.deletedUsers.add(userId);
  }

  isDeleted(userId: string): boolean {
    return this.deletedUsers.has(userId);
  }

  /** The guild's rules (guild-rules.ts); 404 for an unknown guild. */
  rules(guildId: string): GuildRules {
    return this.requireGuild(guildId).rules(this.botUserId);
  }

  /**
   * Changes a guild's rules. `botInGuild: false` removes the bot as a kick would (its managed role stays
   * reserved for it); true adds it back holding that role, with the role's permissions as they were.
   */
  setRules(guildId: string, patch: Partial<GuildRules>): GuildRules {
    const guild = this.requireGuild(guildId);
    guild.setRules(patch);
    if (patch.botInGuild === false) guild.leaveBot(this.botUserId);
    if (patch.botInGuild === true) guild.joinBot(this.botUserId);
    return guild.rules(this.botUserId);
  }

  /** The bot's DM channel with the user, opened on first use. */
  dmChannel(recipientId: string): string {
    let id = this.dmChannels.get(recipientId);
    if (id === undefined) {
      id = String(this.nextChannelId++);
      this.dmChannels.set(recipientId, id);
      this.dmRecipients.set(id, recipientId);
    }
    return id;
  }

  /** Where a channel id leads: a DM (its recipient) or a guild's text channel; undefined when unknown. */
  channel(channelId: string): { kind: 'dm'; recipientId: string } | { kind: 'guild'; guildId: string } | undefined {
    const recipientId = this.dmRecipients.get(channelId);
    if (recipientId !== undefined) return { kind: 'dm', recipientId };
    const guild = this.allGuilds().find((g) => g.channels.some((c) => c.id === channelId));
    return guild && { kind: 'guild', guildId: guild.id };
  }

  /**
   * Why the platform would refuse a post to the user's DM channel: 'no mutual guild' when the user is in
   * no guild the bot is in (50278; the owner counts as in the guild), 'closed' when the user turned DMs
   * off (50007); undefined when it would take it.
   */
  dmRefusal(recipientId: string): 'no mutual guild' | 'closed' | undefined {
    const id = BigInt(recipientId);
    if (!this.allGuilds().some((g) => (g.ownerId === recipientId || g.members.has(id)) && g.hasBot(this.botUserId)))
      return 'no mutual guild';
    return this.dmsClosed.has(recipientId) ? 'closed' : undefined;
  }

  /** The user's privacy setting "allow direct messages": off, posts to their DMs answer 403 50007. 404 for an unknown user. */
  setDmsOpen(userId: string, open: boolean): void {
    if (!this.knowsUser(userId)) throw AppError.notFound(`Unknown user ${userId}`);
    if (open) this.dmsClosed.delete(userId);
    else this.dmsClosed.add(userId);
  }

  /**
   * The owner hands the guild to a member (the platform's ownership transfer): GET /guilds/:g names the new
   * owner from then on; the previous owner stays in the guild, as a member without roles when the seed had
   * not listed them. 404 for an unknown guild; 409 when the new owner is not a member, or already owns it.
   */
  transferOwnership(guildId: string, newOwnerId: string): void {
    const guild = this.requireGuild(guildId);
    if (guild.ownerId === newOwnerId)
      throw new AppError(409, `User ${newOwnerId} already owns guild ${guildId}`, 'conflict');
    if (!guild.members.has(BigInt(newOwnerId)))
      throw new AppError(
        409,
        `User ${newOwnerId} is not a member of guild ${guildId}: ownership goes only to a member`,
        'conflict',
      );
    guild.members.insert(BigInt(guild.ownerId), this.roleIndexes(guild, []));
    guild.ownerId = newOwnerId;
  }

  postMessage(channelId: string, content: string): SentMessage {
    const target = this.channel(channelId);
    if (!target) throw new Error(`unknown channel ${channelId}`);
    const message: SentMessage = {
      id: String(this.nextChannelId++),
      channelId,
      ...(target.kind === 'dm'
        ? { recipientId: target.recipientId, guildId: null }
        : { recipientId: null, guildId: target.guildId }),
      content,
      at: new Date(this.now()).toISOString(),
    };
    this.messages.push(message);
    return message;
  }

  guild(id: string): GuildState | undefined {
    return this.guilds.get(id);
  }

  guildIds(): string[] {
    return [...this.guilds.keys()];
  }

  /** Every guild, in seeding order. */
  allGuilds(): GuildState[] {
    return [...this.guilds.values()];
  }

  /** User ids holding the role, ascending. */
  holders(guildId: string, roleId: string): string[] {
    const guild = this.requireGuild(guildId);
    const role = this.requireRole(guild, roleId);
    if (guild.isEveryone(role)) return guild.members.page(-1n, guild.members.size).map((m) => m.id.toString());
    return guild.members.holders(role.index).map(String);
  }

  /** The member's role ids, or undefined when the user is not in the guild. */
  memberRoles(guildId: string, userId: string): string[] | undefined {
    const guild = this.requireGuild(guildId);
    const roles = guild.members.roles(BigInt(userId));
    return roles && guild.roleIds(roles);
  }

  /**
   * A moderator's hand edit: replaces the member's roles, bypassing rate limits and hierarchy. Like any
   * change on the platform it is in the guild's audit log: one entry for the edit, every role it added
   * and removed grouped in it, by `actorId` (default the guild's owner).
   */
  setMemberRoles(guildId: string, userId: string, roles: readonly string[], actorId?: string): void {
    const guild = this.requireGuild(guildId);
    const indexes = this.roleIndexes(guild, roles);
    const before = new Set(guild.members.roles(BigInt(userId)) ?? []);
    if (guild.members.setRoles(BigInt(userId), indexes) === undefined)
      throw AppError.notFound(`Unknown member ${userId} in guild ${guildId}`);
    this.counters.handEdit();
    const after = new Set(indexes);
    const at = new Date(this.now()).toISOString();
    const added = [...after].filter((i) => !before.has(i)).map((i) => guild.roles[i]!.id);
    const removed = [...before].filter((i) => !after.has(i)).map((i) => guild.roles[i]!.id);
    if (added.length + removed.length === 0) return;
    this.audit.record({
      guildId,
      actorId: actorId ?? guild.ownerId,
      userId,
      added,
      removed,
      reason: null,
      changed: true,
      at,
    });
  }

  /** An admin drags the role to `position` in Server Settings → Roles (no hierarchy check: the owner's drag). 404 unknown guild or role, 400 for @everyone. */
  moveRole(guildId: string, roleId: string, position: number): void {
    const guild = this.requireGuild(guildId);
    const role = this.requireRole(guild, roleId);
    if (guild.isEveryone(role)) throw AppError.badRequest('@everyone stays at position 0', 'everyone_position');
    guild.moveRole(role, position);
  }

  addMember(guildId: string, userId: string, roles: readonly string[] = []): void {
    const guild = this.requireGuild(guildId);
    if (this.deletedUsers.has(userId))
      throw new AppError(409, `User ${userId} was deleted: a deleted account joins no guild`, 'conflict');
    if (!guild.members.insert(BigInt(userId), this.roleIndexes(guild, roles)))
      throw new AppError(409, `Member ${userId} is already in guild ${guildId}`, 'conflict');
  }

  /**
   * The bot authorization page's "Authorize": `userId` adds the bot to the guild with `permissions` on its
   * managed role. As on the platform, only the owner or a member with Manage Server (or Administrator)
   * may, and only once: 404 unknown guild, 403 not allowed, 409 the bot is already there.
   */
  addBot(guildId: string, userId: string, permissions: bigint): void {
    const guild = this.requireGuild(guildId);
    const held = guildPermissions(guild, userId);
    if (held === undefined || (held & (PermissionFlagsBits.ManageGuild | PermissionFlagsBits.Administrator)) === 0n) {
      throw AppError.forbidden(
        `User ${userId} cannot add the bot to guild ${guildId}: it needs Manage Server there (or ownership)`,
      );
    }
    if (!guild.joinBot(this.botUserId, permissions))
      throw new AppError(409, `The bot is already in guild ${guildId}`, 'conflict');
  }

  removeMember(guildId: string, userId: string): void {
    const guild = this.requireGuild(guildId);
    if (!guild.members.remove(BigInt(userId))) throw AppError.notFound(`Unknown member ${userId} in guild ${guildId}`);
    // The account still exists after leaving: member routes answer 10007 for it, not 10013.
    this.knownUsers.add(userId);
  }

  /** A member-role change through the platform API (checks done by the caller); undefined = no such member. */
  changeRole(
    guild: GuildState,
    userId: string,
    role: RoleDef,
    op: 'add' | 'remove',
    reason: string | null,
  ): boolean | undefined {
    const id = BigInt(userId);
    const changed = guild.isEveryone(role)
      ? guild.members.has(id)
        ? false
        : undefined
      : op === 'add'
        ? guild.members.addRole(id, role.index)
        : guild.members.removeRole(id, role.index);
    if (changed === undefined) return undefined;
    this.counters.roleChange(changed ? (op === 'add' ? 'added' : 'removed') : 'unchanged');
    this.audit.record({
      guildId: guild.id,
      actorId: this.botUserId,
      userId,
      added: op === 'add' ? [role.id] : [],
      removed: op === 'remove' ? [role.id] : [],
      reason,
      changed,
      at: new Date(this.now()).toISOString(),
    });
    return changed;
  }

  /**
   * The bot's edit of a member's whole role list (PATCH /guilds/:g/members/:u, checks done by the caller):
   * every role added and removed at once, logged as one entry with both lists, as the platform logs it.
   */
  setRolesByBot(guild: GuildState, userId: string, added: RoleDef[], removed: RoleDef[], reason: string | null): void {
    const id = BigInt(userId);
    for (const r of added) {
      guild.members.addRole(id, r.index);
      this.counters.roleChange('added');
    }
    for (const r of removed) {
      guild.members.removeRole(id, r.index);
      this.counters.roleChange('removed');
    }
    if (added.length + removed.length === 0) return;
    this.audit.record({
      guildId: guild.id,
      actorId: this.botUserId,
      userId,
      added: added.map((r) => r.id),
      removed: removed.map((r) => r.id),
      reason,
      changed: true,
      at: new Date(this.now()).toISOString(),
    });
  }

  auditLog(guildId?: string): AuditEntry[] {
    return this.audit.list(guildId);
  }

  stats(): EmulatorStats {
    const now = this.now();
    const banRemainingMs = this.limits.banRemaining(now);
    return {
      ...this.counters.snapshot(),
      invalidRequests: this.limits.invalidCount(now),
      banned: banRemainingMs > 0,
      banRemainingMs,
      guilds: this.guilds.size,
      config: this.config,
    };
  }

  requireGuild(id: string): GuildState {
    const guild = this.guilds.get(id);
    if (!guild) throw AppError.notFound(`Unknown guild ${id}`);
    return guild;
  }

  private requireRole(guild: GuildState, roleId: string): RoleDef {
    const role = guild.role(roleId);
    if (!role) throw AppError.notFound(`Unknown role ${roleId} in guild ${guild.id}`);
    return role;
  }

  private roleIndexes(guild: GuildState, roles: readonly string[]): number[] {
    const unknown = roles.filter((r) => !guild.role(r));
    if (unknown.length)
      throw AppError.badRequest(`Unknown role(s) in guild ${guild.id}: ${unknown.join(', ')}`, 'unknown_role');
    return guild.roleIndexes(roles);
  }
}
