import type { RedisClient } from '@rolelink/queue';

/**
 * A share may go beyond its floor only while the global budget is at most this full: once syncs push the
 * last window's grants past half the limit, every share drops back to its floor, so a busy sync engine
 * keeps (1 − the floors) of the global limit.
 */
export const SPARE_BELOW = 0.5;

export type BudgetShareOptions = {
  /** Requests per second always available to the share (e.g. DRIFT_POLL_SHARE × the global limit). */
  floorPerSecond: number;
  /** Requests per second it may reach while the global budget has room (e.g. DRIFT_POLL_MAX_SHARE × the global limit). */
  maxPerSecond: number;
  /** Share (0–1) of the global limit granted in the last window, across all workers (SharedRateLimiter.globalLoad). Without it, the floor only. */
  globalLoad?: () => Promise<number>;
};

/**
 * One kind of work's share of the platform's global request budget, across all worker processes (a
 * counter per window in Redis): the drift poll's audit-log reads, the notifications' sends. It only caps
 * that work: every request still takes its slot from the shared limiter like any other, so together the
 * syncs and the shares never exceed the platform's limit, and a share can never starve the syncs.
 */
export class BudgetShare {
  /** Long enough that the floor is at least one request per window (a floor of 0.5/s gets 2 s windows). */
  readonly windowMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    readonly o: BudgetShareOptions,
  ) {
    this.windowMs = Math.max(1_000, Math.ceil(1_000 / o.floorPerSecond));
  }

  /** Time until the next window opens (with a new share to spend). */
  nextWindowInMs(now = Date.now()): number {
    return this.windowMs - (now % this.windowMs);
  }

  /** One request's worth of budget, or false when the share of this window is spent. */
  async take(): Promise<boolean> {
    const perWindow = (perSecond: number) => Math.max(1, Math.floor((perSecond * this.windowMs) / 1_000));
    const key = `${this.key}:${Math.floor(Date.now() / this.windowMs)}`;
    const n = await this.redis.incr(key);
    if (n === 1) await this.redis.pexpire(key, this.windowMs * 2);
    if (n <= perWindow(this.o.floorPerSecond)) return true;
    if (
      n <= perWindow(this.o.maxPerSecond) &&
      this.o.globalLoad &&
      (await this.o.globalLoad().catch(() => 1)) < SPARE_BELOW
    )
      return true;
    await this.redis.decr(key);
    return false;
  }

  /** One request's worth, waiting for the next window while this one is spent (for work with nothing else to do meanwhile). */
  async acquire(): Promise<void> {
    while (!(await this.take())) await new Promise((r) => setTimeout(r, this.nextWindowInMs()));
  }
}
