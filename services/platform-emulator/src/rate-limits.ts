import { createHash } from 'node:crypto';
import { FixedWindow, type WindowState } from './fixed-window';
import { INVALID_WINDOW_MS, type EmulatorConfig } from './options';
import { SlidingCounter } from './sliding-counter';

/** `roles`: the per-guild member-role bucket (PUT and DELETE share it); `route`: every other route. */
export type BucketKind = 'roles' | 'route';
export type Bucket = { kind: BucketKind; hash: string; window: FixedWindow };
export type Scope = 'user' | 'global' | 'shared';

export type Admission = { allowed: true; bucket: WindowState } | { allowed: false; scope: 'user' | 'global'; retryAfterMs: number; bucket: WindowState };

const SWEEP_AT = 10_000;

/**
 * The platform's limits: per token (the bot's, or a signed-in user's) a global per-second window and a
 * bucket per route and major parameter; one invalid-request counter with its temporary ban. Decisions
 * only; the HTTP layer turns them into headers and 429 bodies.
 */
export class RateLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly globals = new Map<string, FixedWindow>();
  private readonly invalid = new SlidingCounter(INVALID_WINDOW_MS);
  private bannedUntil = 0;

  constructor(private readonly config: () => EmulatorConfig) {}

  /**
   * The bucket for a route and its major parameter, created on first use with the current limits.
   * `owner` gives a caller other than the bot its own window of the bucket; the hash stays the route's.
   */
  bucket(kind: BucketKind, route: string, major: string, now: number, owner?: string): Bucket {
    const routeKey = `${route}:${major}`;
    const key = owner === undefined ? routeKey : `${routeKey}\n${owner}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      const spec = kind === 'roles' ? this.config().roleBucket : this.config().routeBucket;
      bucket = { kind, hash: createHash('sha256').update(routeKey).digest('hex').slice(0, 32), window: new FixedWindow(spec) };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Spends one request of the token's global window, then one of the bucket's. */
  admit(token: string, bucket: Bucket, now: number): Admission {
    const global = this.globalWindow(token, now).take(now);
    if (!global.allowed) return { allowed: false, scope: 'global', retryAfterMs: global.resetAfterMs, bucket: bucket.window.peek(now) };
    const taken = bucket.window.take(now);
    if (!taken.allowed) return { allowed: false, scope: 'user', retryAfterMs: taken.resetAfterMs, bucket: taken };
    return { allowed: true, bucket: taken };
  }

  /** Records a 401/403/429 answer; reaching the threshold within the window starts the ban. */
  recordInvalid(now: number): void {
    if (this.invalid.add(now) < this.config().invalidThreshold) return;
    this.bannedUntil = now + this.config().banMs;
    this.invalid.clear();
  }

  invalidCount(now: number): number {
    return this.invalid.count(now);
  }

  /** Milliseconds of ban left (0 when not banned). */
  banRemaining(now: number): number {
    return Math.max(0, this.bannedUntil - now);
  }

  /** Drops buckets of a kind so new limits apply from the next request. */
  dropBuckets(kind: BucketKind | 'global'): void {
    if (kind === 'global') return this.globals.clear();
    for (const [key, b] of this.buckets) if (b.kind === kind) this.buckets.delete(key);
  }

  reset(): void {
    this.buckets.clear();
    this.globals.clear();
    this.invalid.clear();
    this.bannedUntil = 0;
  }

  private globalWindow(token: string, now: number): FixedWindow {
    let window = this.globals.get(token);
    if (!window) {
      // Every user token gets a window; drop the idle ones before they pile up.
      if (this.globals.size >= SWEEP_AT) for (const [key, w] of this.globals) if (w.expired(now)) this.globals.delete(key);
      window = new FixedWindow({ limit: this.config().globalPerSecond, windowMs: 1000 });
      this.globals.set(token, window);
    }
    return window;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.window.expired(now)) this.buckets.delete(key);
  }
}
