import type { RedisClient } from '@rolelink/queue';
import type { ConfigStructure, IframeResponse } from '@rolelink/contracts';

/** A form structure (never `values`) as last fetched from the plugin. */
export type CachedConfig = {
  fetchedAt: number;
  response: { ui_mode: 'schema'; structure: ConfigStructure } | { ui_mode: 'iframe'; iframe: IframeResponse };
};

/** Structures younger than this are reused instead of the plugin's latest structure (spec 4.2 rule 2). */
export const CONFIG_CACHE_FRESH_MS = 5 * 60_000;
/** Older structures are kept this long as the fallback for an unreachable or misbehaving plugin. */
export const CONFIG_CACHE_KEEP_MS = 24 * 3600_000;

/**
 * The schema cache, in Redis so every broker replica shares it. Best effort: a Redis error reads as a
 * miss and a failed write is ignored, so a cache outage never fails a call the plugin could answer.
 */
export class ConfigCache {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(linkId: string): string {
    return `${this.prefix}:plugin-config:${linkId}`;
  }

  async get(linkId: string): Promise<CachedConfig | null> {
    try {
      const raw = await this.redis.get(this.key(linkId));
      return raw ? (JSON.parse(raw) as CachedConfig) : null;
    } catch {
      return null;
    }
  }

  async set(linkId: string, entry: CachedConfig): Promise<void> {
    await this.redis.set(this.key(linkId), JSON.stringify(entry), 'PX', CONFIG_CACHE_KEEP_MS).catch(() => undefined);
  }

  isFresh(entry: CachedConfig, now: number): boolean {
    return now - entry.fetchedAt < CONFIG_CACHE_FRESH_MS;
  }
}
