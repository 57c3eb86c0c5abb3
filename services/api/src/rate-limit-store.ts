import type { RedisClient } from '@rolelink/queue';

/**
 * Takes `n` hits of a fixed window at once: the counter starts its window (PEXPIRE) on its first hit, as
 * rate-limit-redis's script does; the answer is the total after this take and the milliseconds left.
 * Sent with EVAL, not EVALSHA: takes are rare (see LEASE_DIVISOR), so the script's 200 bytes cost nothing
 * and there is no script cache to reload after a Redis restart.
 */
const TAKE = `
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { total, ttl }`;

/** A hit's place in its window: the count so far, this hit included, and when the window resets. */
export type IncrementResponse = { totalHits: number; resetTime: Date };

/** At most this many hits per take: one Redis round trip per 64 requests of a busy token. */
export const MAX_LEASE = 64;
/**
 * A take is at most this fraction of what is left of the budget, so a replica never holds much of it
 * unused: far from the limit takes are MAX_LEASE, near it they shrink to 1 and every hit asks Redis, which
 * makes the last requests of a budget exact across replicas.
 */
const LEASE_DIVISOR = 8;

type Lease = {
  /** Global position of the next hit this replica hands out. */
  next: number;
  /** Last position this replica holds; also the window's total as Redis last answered it. */
  end: number;
  /** Epoch ms at which the window resets. */
  resetAt: number;
  /** Hits refused locally after the window's budget was known to be spent. */
  refused: number;
};

/** A hit's position in the window (over the limit: refused) and when the window resets (epoch ms). */
export type LocalHit = { totalHits: number; resetAt: number };

export type LeasedStoreOptions = {
  redis: RedisClient;
  /** Key prefix in Redis; replicas of one deployment share it, so they share the budget. */
  prefix: string;
  windowMs: number;
  /** The limit of a key's budget right now (its link's plan); read on every hit so a plan change applies. */
  limitOf(key: string): number;
};

/**
 * The rate limiter's store (rate-limit.ts): hits are positions in one window-wide sequence kept in Redis,
 * handed out from leases: a replica takes a run of positions with one INCRBY and serves the next requests of
 * that token from memory. rate-limit-redis sends one command per request, a round trip of API CPU on
 * every POST (the limiter must keep ≥ 90% of the throughput without it; docs/benchmarks.md); a lease of 64
 * spends that once per 64 requests.
 *
 * Exactness: a hit is allowed when its position is within the limit, so one replica counts exactly as a
 * per-request counter does. With several replicas, positions another replica holds but has not used yet
 * count as used: a client can be refused early by at most what the other replicas hold, which is at most
 * 1/8 of the budget left when they took it and nothing for the last 8 requests of a budget. Once Redis has
 * answered a total at or over the limit, the rest of the window is refused from memory (a fixed window
 * does not reopen before it resets), so a client hammering through 429s costs Redis nothing.
 */
export class LeasedRedisStore {
  readonly prefix: string;
  private readonly leases = new Map<string, Lease>();
  /** One take in flight per key: concurrent requests of one token wait for it instead of taking again. */
  private readonly taking = new Map<string, Promise<void>>();

  constructor(private readonly opts: LeasedStoreOptions) {
    this.prefix = opts.prefix;
  }

  async increment(key: string): Promise<IncrementResponse> {
    for (;;) {
      const hit = this.takeLocal(key);
      if (hit) return { totalHits: hit.totalHits, resetTime: new Date(hit.resetAt) };
      let take = this.taking.get(key);
      if (!take) {
        const left = this.opts.limitOf(key) - (this.current(key)?.end ?? 0);
        take = this.take(key, Math.min(MAX_LEASE, Math.max(1, Math.floor(left / LEASE_DIVISOR)))).finally(() =>
          this.taking.delete(key),
        );
        this.taking.set(key, take);
      }
      await take;
    }
  }

  /**
   * A hit served from memory, without a promise: the next position of a lease with room, or a refusal
   * once the window's budget is known to be spent. Undefined when Redis has to be asked (increment).
   * The limiter middleware calls this first, so most requests cost no await at all.
   */
  takeLocal(key: string): LocalHit | undefined {
    const lease = this.current(key);
    if (!lease) return undefined;
    if (lease.next <= lease.end) return { totalHits: lease.next++, resetAt: lease.resetAt };
    if (lease.end >= this.opts.limitOf(key)) return { totalHits: lease.end + ++lease.refused, resetAt: lease.resetAt };
    return undefined;
  }

  /** Gives one hit back to the shared count. */
  async decrement(key: string): Promise<void> {
    await this.opts.redis.decr(this.prefix + key);
  }

  async resetKey(key: string): Promise<void> {
    this.leases.delete(key);
    await this.opts.redis.del(this.prefix + key);
  }

  private current(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && lease.resetAt <= Date.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }

  private async take(key: string, n: number): Promise<void> {
    const [total, ttl] = (await this.opts.redis.eval(TAKE, 1, this.prefix + key, n, this.opts.windowMs)) as [
      number,
      number,
    ];
    const resetAt = Date.now() + ttl;
    // Positions total-n+1 … total are ours. A lease of the previous window left in memory is replaced.
    this.leases.set(key, { next: total - n + 1, end: total, resetAt, refused: 0 });
    if (this.leases.size > 10_000) this.forgetExpired();
  }

  /** Keeps memory bounded by the tokens active in one window, not every token ever seen. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, lease] of this.leases) if (lease.resetAt <= now) this.leases.delete(key);
  }
}
