import { createHash } from 'node:crypto';
import { FixedWindow, type WindowState } from './fixed-window';
import { INVALID_WINDOW_MS, type EmulatorConfig } from './options';
import { SlidingCounter } from './sliding-counter';

/** `roles`: the per-guild member-role bucket (PUT and DELETE share it); `route`: every other route. */
export type BucketKind = 'roles' | 'route';
/** `major`: the route's top-level resource (a guild id, or '' for routes without one). */
export type Bucket = { kind: BucketKind; major: string; hash: string; window: FixedWindow };
export type Scope = 'user' | 'global' | 'shared';

export type Admission =
  { allowed: true; bucket: WindowState } | { allowed: false; scope: Scope; retryAfterMs: number; bucket: WindowState };

const SWEEP_AT = 10_000;

/**
 * The platform's limits: per token (the bot's, or a signed-in user's) a global per-second window and a
 * bucket per route and major parameter; per resource a `shared` limit the control API switches on (the
 * platform limits a busy resource for every caller at once); one invalid-request counter with its
 * temporary ban. Decisions only; the HTTP layer turns them into headers and 429 bodies.
 */
export class RateLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly globals = new Map<string, FixedWindow>();
  private readonly invalid = new SlidingCounter(INVALID_WINDOW_MS);
  /** `kind:major` → until when (epoch ms) that resource answers 429 scope shared. */
  private readonly shared = new Map<string, number>();
  private bannedUntil = 0;

  constructor(private readonly config: () => EmulatorConfig) {}

  /**
   * The bucket for a route and its major parameter, created on first use with the current limits.
   * `owner` gives a caller other than the bot its own window of the bucket. The hash is the route's
   * alone: as the platform's X-RateLimit-Bucket, it leaves out the top-level resource (every guild's
   * member-role bucket has the same hash and its own window), so clients key buckets by hash + major.
   */
  bucket(kind: BucketKind, route: string, major: string, now: number, owner?: string): Bucket {
    const routeKey = `${route}:${major}`;
    const key = owner === undefined ? routeKey : `${routeKey}\n${owner}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      const spec = kind === 'roles' ? this.config().roleBucket : this.config().routeBucket;
      bucket = {
        kind,
        major,
        hash: createHash('sha256').update(route).digest('hex').slice(0, 32),
        window: new FixedWindow(spec),
      };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /**
   * Spends one request of the token's global window, then (unless the resource is under a shared limit,
   * which spends nothing of the bucket, as in the docs' example with Remaining 9 of 10) one of the bucket's.
   */
  admit(token: string, bucket: Bucket, now: number): Admission {
    const global = this.globalWindow(token, now).take(now);
    if (!global.allowed)
      return { allowed: false, scope: 'global', retryAfterMs: global.resetAfterMs, bucket: bucket.window.peek(now) };
    const shared = this.sharedRemaining(bucket.kind, bucket.major, now);
    if (shared > 0) return { allowed: false, scope: 'shared', retryAfterMs: shared, bucket: bucket.window.peek(now) };
    const taken = bucket.window.take(now);
    if (!taken.allowed) return { allowed: false, scope: 'user', retryAfterMs: taken.resetAfterMs, bucket: taken };
    return { allowed: true, bucket: taken };
  }

  /**
   * Puts a resource (a guild's member-role bucket) under a shared limit for `durationMs`: every caller's
   * request answers 429 scope shared until then; 0 lifts it.
   */
  limitShared(kind: BucketKind, major: string, durationMs: number, now: number): void {
    if (durationMs <= 0) this.shared.delete(`${kind}:${major}`);
    else this.shared.set(`${kind}:${major}`, now + durationMs);
  }

  private sharedRemaining(kind: BucketKind, major: string, now: number): number {
    if (this.shared.size === 0) return 0;
    const until = this.shared.get(`${kind}:${major}`);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.shared.delete(`${kind}:${major}`);
    return 0;
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
    this.shared.clear();
    this.bannedUntil = 0;
  }

  private globalWindow(token: string, now: number): FixedWindow {
    let window = this.globals.get(token);
    if (!window) {
      // Every user token gets a window; drop the idle ones before they pile up.
      if (this.globals.size >= SWEEP_AT)
        for (const [key, w] of this.globals) if (w.expired(now)) this.globals.delete(key);
      window = new FixedWindow({ limit: this.config().globalPerSecond, windowMs: 1000 });
      this.globals.set(token, window);
    }
    return window;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.window.expired(now)) this.buckets.delete(key);
  }
}
