import type { API } from '@discordjs/core/http-only';
import {
  ChannelType,
  type APIGuildChannel,
  type APINewsChannel,
  type APIRole,
  type APITextChannel,
  type GuildChannelType,
} from 'discord-api-types/v10';
import type { DashboardRole } from '@rolelink/contracts';
import type { BotFacts } from '@rolelink/domain';
import { platformAppError } from '@rolelink/admin';
import { classifyPlatformError, readRoleCounts, type RoleCounts } from '@rolelink/platform-client';
import { AppError } from '@rolelink/runtime';

/** A role as the dashboard reads it: `permissions` parsed, for the bot's access (roleAccessProblem) and the privileged flag. */
export type PlatformRole = DashboardRole & { managed: boolean; everyone: boolean; permissions: bigint };

/** Short-lived memo per key, so a page polled every few seconds does not spend the bot's rate limits. */
class Memo<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();
  constructor(private readonly ttlMs: number) {}
  /** `maxAgeMs` (below the ttl) asks for a fresher value than usual, still shared by every caller. */
  get(key: string, load: () => Promise<T>, maxAgeMs = this.ttlMs): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < Math.min(maxAgeMs, this.ttlMs)) return hit.value;
    const value = load();
    this.entries.set(key, { at: Date.now(), value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

/** Channels a message can be posted to (text and announcement), not voice, categories or forums. */
function isTextChannel(c: APIGuildChannel<GuildChannelType>): c is APITextChannel | APINewsChannel {
  return c.type === ChannelType.GuildText || c.type === ChannelType.GuildAnnouncement;
}

export function roleColor(role: Pick<APIRole, 'color'>): string | null {
  return role.color ? `#${role.color.toString(16).padStart(6, '0')}` : null;
}

/**
 * What the dashboard reads from the platform as the bot (through @rolelink/platform-client, so the
 * bot's rate limits stay shared with the sync workers): which guilds the bot is in, roles, the bot's
 * highest role, member counts. Reads are memoised briefly; writes never happen here.
 */
export class GuildReader {
  private readonly botGuilds = new Memo<Set<string>>(60_000);
  private readonly roleLists = new Memo<PlatformRole[]>(20_000);
  private readonly botRoles = new Memo<string[]>(20_000);
  private readonly memberCounts = new Memo<number | null>(60_000);
  private readonly channelLists = new Memo<{ id: string; name: string }[]>(20_000);
  private botUserId: Promise<string> | null = null;

  constructor(private readonly api: API) {}

  /**
   * Guilds the bot is a member of: a user may manage only those (the bot must be there to sync).
   * Memoised 60 s; `maxAgeMs` asks for a fresher list (see GuildAccess.manageable, just after an invite).
   */
  botGuildIds(maxAgeMs?: number): Promise<Set<string>> {
    return this.botGuilds.get(
      'all',
      async () => {
        const ids = new Set<string>();
        let after: string | undefined;
        for (;;) {
          const page = await this.platform(() => this.api.users.getGuilds({ limit: 200, ...(after ? { after } : {}) }));
          for (const g of page) ids.add(g.id);
          if (page.length < 200) return ids;
          after = page[page.length - 1]!.id;
        }
      },
      maxAgeMs,
    );
  }

  roles(guildId: string): Promise<PlatformRole[]> {
    return this.roleLists.get(guildId, async () => {
      const roles = await this.platform(() => this.api.guilds.getRoles(guildId));
      return roles
        .map((r) => ({
          id: r.id,
          name: r.name,
          color: roleColor(r),
          position: r.position,
          managed: r.managed,
          everyone: r.id === guildId,
          permissions: BigInt(r.permissions),
        }))
        .sort((a, b) => b.position - a.position);
    });
  }

  /**
   * The bot's roles and the guild's, as @rolelink/domain's roleAccessProblem reads them (the picker's
   * reasons). Memoised like the roles: link creation itself reads them afresh (@rolelink/admin's botFacts).
   */
  async botFacts(guildId: string): Promise<BotFacts> {
    const [roles, botRoleIds] = await Promise.all([
      this.roles(guildId),
      this.botRoles.get(guildId, async () => {
        this.botUserId ??= this.platform(() => this.api.users.getCurrent()).then((u) => u.id);
        return (await this.platform(async () => this.api.guilds.getMember(guildId, await this.botUserId!))).roles;
      }),
    ]);
    return { guildId, roles, botRoleIds };
  }

  /** The guild's text channels, in the platform's order: where notifications may be posted. */
  textChannels(guildId: string): Promise<{ id: string; name: string }[]> {
    return this.channelLists.get(guildId, async () => {
      const channels = await this.platform(() => this.api.guilds.getChannels(guildId));
      return channels
        .filter(isTextChannel)
        .sort((a, b) => a.position - b.position)
        .map((c) => ({ id: c.id, name: c.name }));
    });
  }

  memberCount(guildId: string): Promise<number | null> {
    return this.memberCounts.get(guildId, async () => {
      const g = await this.platform(() => this.api.guilds.get(guildId, { with_counts: true }));
      return g.approximate_member_count ?? null;
    });
  }

  roleCounts(guildId: string): Promise<RoleCounts> {
    return this.platform(() => readRoleCounts(this.api, guildId));
  }

  /** Platform failures become the dashboard's 404 for a guild the bot cannot see, else admin's platformAppError. */
  private async platform<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 404 || status === 403)
        throw new AppError(404, 'The bot cannot see this server on the platform', 'guild_unavailable');
      // Told as the platform answered (a 500 is "answered 500", only silence "did not answer").
      throw platformAppError(classifyPlatformError(err), 'The server could not be read');
    }
  }
}
