import type { Cluster, Redis } from 'ioredis';
import { PlatformRateLimitedError } from '../errors';
import type { RouteId } from '../route';
import { ACQUIRE, ANSWERED, EDGE_BAN, INVALID, OBSERVE, RATE_LIMITED, RELEASE_PROBE } from './scripts';

export type SharedLimiterOptions = {
  redis: Redis | Cluster;
  /** Key prefix shared by every process using the same bot token, e.g. `rolelink:platform:<token id>`. */
  prefix: string;
  /** The platform's global per-token limit (requests per second). */
  globalPerSecond: number;
  /**
   * Added to the platform's 1 s global window: Redis' TIME is read to the whole millisecond (floored) at a
   * grant and at its answer. Jitter needs no margin: a request counts from its grant until a window after
   * its answer (docs/sync-engine.md, "Global limit").
   */
  globalMarginMs: number;
  /**
   * How long a granted request whose answer is never reported (its process died mid-call) counts toward
   * the global limit: as long as the HTTP client's timeout (REST's 15 s), after which it cannot answer.
   */
  inFlightLeaseMs: number;
  /** Added to every reset the platform announces (clock and network slack), like @discordjs/rest's `offset`. */
  offsetMs: number;
  /** How long one probe owns an unknown window before another request may try. */
  probeLeaseMs: number;
  /** Forget a bucket this long after its last use (it is then probed again). */
  bucketTtlMs: number;
  /** The platform's invalid-request window and our budget in it (the platform bans at 10,000 per 10 min). */
  invalidWindowMs: number;
  invalidBudget: number;
  /** Back-off after a 401, doubling per repeat within the window, capped. */
  authBackoffBaseMs: number;
  authBackoffMaxMs: number;
  /**
   * An edge ban (429 without X-RateLimit-* headers) blocks every request for its Retry-After, doubled for
   * each ban in a row, up to max(Retry-After, this). `edgeBanDefaultMs` when the edge sends no Retry-After.
   */
  edgeBanMaxMs: number;
  edgeBanDefaultMs: number;
};

export const DefaultLimiterOptions = {
  globalPerSecond: 50,
  globalMarginMs: 2,
  inFlightLeaseMs: 15_000,
  offsetMs: 50,
  probeLeaseMs: 5_000,
  bucketTtlMs: 10 * 60_000,
  invalidWindowMs: 10 * 60_000,
  invalidBudget: 1_000,
  authBackoffBaseMs: 30_000,
  authBackoffMaxMs: 10 * 60_000,
  edgeBanMaxMs: 6 * 3600_000,
  edgeBanDefaultMs: 60_000,
} as const satisfies Omit<SharedLimiterOptions, 'redis' | 'prefix'>;

/** `slot`: the request's entry in the global log, scored with its answer's time by `observe` or `abandon`. */
export type Grant = { bucketKey: string; kind: 'probe' | 'token'; waitMs: number; slot: string };

/** What an answer means for the whole token, beyond its bucket: an edge ban blocks every request for `blockedMs`. */
export type Observation = { edgeBan?: { blockedMs: number } };

export type LimiterEvents = {
  rateLimited?(info: { scope: string; global: boolean; retryAfterMs: number; routeKey: string; major: string }): void;
  /**
   * The platform's edge answered 429 without rate-limit headers (the invalid-request ban): every request
   * of the token, in every process, waits `blockedMs`. `began`: this answer started the ban (once per ban,
   * across processes); `inARow`: how many bans came one right after another (the block doubles each time).
   */
  edgeBan?(info: {
    began: boolean;
    blockedMs: number;
    retryAfterMs: number;
    inARow: number;
    routeKey: string;
    major: string;
  }): void;
  invalidRequest?(info: { status: number; countInWindow: number; blockMs: number }): void;
};

type HeaderBag = { get(name: string): string | null };

type LimiterRedis = (Redis | Cluster) & {
  rlAcquire(
    b: string,
    g: string,
    blk: string,
    seq: string,
    window: number,
    limit: number,
    lease: number,
    ttl: number,
    inFlightLease: number,
  ): Promise<[number, number, string, string]>;
  rlAnswered(g: string, slot: string): Promise<number>;
  rlObserve(
    b: string,
    streak: string,
    probe: string,
    limit: number,
    remaining: number,
    resetAfter: number,
    offset: number,
    ttl: number,
  ): Promise<number>;
  rlReleaseProbe(b: string): Promise<number>;
  rlRateLimited(
    b: string,
    blk: string,
    global: string,
    retryAfter: number,
    offset: number,
    ttl: number,
  ): Promise<number>;
  rlInvalid(
    w: string,
    blk: string,
    auth: string,
    status: string,
    windowMs: number,
    budget: number,
    base: number,
    max: number,
  ): Promise<[number, number]>;
  rlEdgeBan(
    blk: string,
    edge: string,
    streak: string,
    retryAfter: number,
    offset: number,
    max: number,
    streakTtl: number,
  ): Promise<[number, number, number]>;
};

function defineScripts(redis: Redis | Cluster): LimiterRedis {
  const r = redis as LimiterRedis;
  if (typeof r.rlAcquire !== 'function') {
    redis.defineCommand('rlAcquire', { numberOfKeys: 4, lua: ACQUIRE });
    redis.defineCommand('rlObserve', { numberOfKeys: 2, lua: OBSERVE });
    redis.defineCommand('rlReleaseProbe', { numberOfKeys: 1, lua: RELEASE_PROBE });
    redis.defineCommand('rlAnswered', { numberOfKeys: 1, lua: ANSWERED });
    redis.defineCommand('rlRateLimited', { numberOfKeys: 2, lua: RATE_LIMITED });
    redis.defineCommand('rlInvalid', { numberOfKeys: 3, lua: INVALID });
    redis.defineCommand('rlEdgeBan', { numberOfKeys: 3, lua: EDGE_BAN });
  }
  return r;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The platform's limits, shared by every process that uses one bot token (design: sync engine rule 5).
 * Per-route buckets are learned from `X-RateLimit-*` headers (never hard-coded): a bucket is probed with
 * one request until its first answer, then spent down to the `remaining` the platform reported and
 * refilled when its announced reset passes (by probing again). The global per-token limit is a sliding
 * log of requests, each counted from its grant until 1 s after its answer, so that any number of workers
 * together never put more than the limit into one of the platform's 1 s windows, whatever the delay
 * between a grant and the platform counting the request.
 */
export class SharedRateLimiter {
  private readonly redis: LimiterRedis;
  private readonly o: SharedLimiterOptions;
  /** The global window: the platform's 1 s, plus the margin for TIME's whole milliseconds. */
  private readonly window: number;
  /**
   * Learned (route, major parameter) → bucket hash (X-RateLimit-Bucket), mirrored in Redis so all
   * processes share it. Keyed by major too: a platform may hash per route (PUT and DELETE sharing one
   * bucket) or per route and resource; either way requests the platform puts in one bucket meet here.
   */
  private readonly hashes = new Map<string, { hash: string | null; checkedAt: number }>();

  constructor(
    options: Partial<SharedLimiterOptions> & Pick<SharedLimiterOptions, 'redis' | 'prefix'>,
    private readonly events: LimiterEvents = {},
  ) {
    this.o = { ...DefaultLimiterOptions, ...options };
    this.redis = defineScripts(this.o.redis);
    this.window = 1000 + this.o.globalMarginMs;
  }

  private key(...parts: string[]): string {
    return [this.o.prefix, ...parts].join(':');
  }

  private async bucketKey(route: RouteId): Promise<string> {
    const id = `${route.routeKey}:${route.major}`;
    let known = this.hashes.get(id);
    if (!known || (known.hash === null && Date.now() - known.checkedAt > 5_000)) {
      known = { hash: await this.redis.get(this.key('route', id)), checkedAt: Date.now() };
      if (this.hashes.size >= 50_000) this.hashes.clear();
      this.hashes.set(id, known);
    }
    return this.key('bucket', known.hash ?? route.routeKey, route.major);
  }

  /**
   * Waits for a slot, at most `maxWaitMs` (`maxBucketWaitMs` for an exhausted bucket); beyond that throws
   * PlatformRateLimitedError carrying how long the caller should stay away. The grant's waitMs is already slept.
   */
  async acquire(route: RouteId, maxWaitMs: number, maxBucketWaitMs = maxWaitMs): Promise<Grant> {
    const deadline = Date.now() + maxWaitMs;
    const bucketDeadline = Date.now() + Math.min(maxWaitMs, maxBucketWaitMs);
    const bucketKey = await this.bucketKey(route);
    for (;;) {
      const [granted, waitMs, kind, slot] = await this.redis.rlAcquire(
        bucketKey,
        this.key('global'),
        this.key('block'),
        this.key('global-seq'),
        this.window,
        Math.max(1, Math.floor(this.o.globalPerSecond)),
        this.o.probeLeaseMs,
        this.o.bucketTtlMs,
        this.o.inFlightLeaseMs,
      );
      if (granted === 1) return { bucketKey, kind: kind as Grant['kind'], waitMs, slot };
      if (waitMs > (kind === 'bucket' ? bucketDeadline : deadline) - Date.now()) {
        throw new PlatformRateLimitedError(
          waitMs,
          kind as PlatformRateLimitedError['limitedBy'],
          route.routeKey,
          route.major,
        );
      }
      await sleep(Math.max(1, waitMs));
    }
  }

  /**
   * The request could not be sent, or its answer taught nothing: give an unknown window back to the next
   * prober. It may still have reached the platform, so it counts toward the global limit for a window from now.
   */
  async abandon(grant: Grant): Promise<void> {
    await Promise.all([
      this.answered(grant),
      grant.kind === 'probe' ? this.redis.rlReleaseProbe(grant.bucketKey) : null,
    ]);
  }

  /** The request's answer is back: it counts toward the global limit for one window from now (no longer in flight). */
  private async answered(grant: Grant): Promise<void> {
    await this.redis.rlAnswered(this.key('global'), grant.slot);
  }

  /** Learns from one answer: bucket headers, 429s, invalid requests, edge bans. */
  async observe(route: RouteId, grant: Grant, status: number, headers: HeaderBag): Promise<Observation> {
    // First, before anything that could fail: a request left "in flight" holds a global slot for the lease.
    await this.answered(grant);
    if (status === 429 && isEdgeAnswer(headers)) return { edgeBan: await this.edgeBan(route, grant, headers) };
    const hash = headers.get('x-ratelimit-bucket');
    const id = `${route.routeKey}:${route.major}`;
    if (hash && this.hashes.get(id)?.hash !== hash) {
      this.hashes.set(id, { hash, checkedAt: Date.now() });
      await this.redis.set(this.key('route', id), hash, 'PX', 24 * 3600_000);
    }
    // The answer names the bucket: record it under the bucket's own key from now on (the provisional
    // per-route key of an undiscovered bucket is dropped, its probe lease released).
    let bucketKey = grant.bucketKey;
    if (hash) {
      const named = this.key('bucket', hash, route.major);
      if (named !== bucketKey) {
        if (grant.kind === 'probe') await this.redis.rlReleaseProbe(bucketKey);
        bucketKey = named;
      }
    }
    const limit = num(headers.get('x-ratelimit-limit'));
    const remaining = num(headers.get('x-ratelimit-remaining'));
    const resetAfter = num(headers.get('x-ratelimit-reset-after'));

    if (status === 429) {
      const scope = headers.get('x-ratelimit-scope') ?? 'user';
      const global = headers.get('x-ratelimit-global') === 'true' || scope === 'global';
      const retryAfterMs = rateLimitWaitS(scope, global, resetAfter, num(headers.get('retry-after'))) * 1000;
      await this.redis.rlRateLimited(
        bucketKey,
        this.key('block'),
        global ? '1' : '0',
        retryAfterMs,
        this.o.offsetMs,
        this.o.bucketTtlMs,
      );
      this.events.rateLimited?.({ scope, global, retryAfterMs, routeKey: route.routeKey, major: route.major });
      if (scope !== 'shared') await this.invalid(status);
      return {};
    }
    if (status === 401 || status === 403) await this.invalid(status);
    if (limit !== null && remaining !== null && resetAfter !== null) {
      await this.redis.rlObserve(
        bucketKey,
        this.key('edge-streak'),
        grant.kind === 'probe' ? '1' : '0',
        limit,
        remaining,
        resetAfter * 1000,
        this.o.offsetMs,
        this.o.bucketTtlMs,
      );
    } else if (grant.kind === 'probe') {
      await this.redis.rlReleaseProbe(bucketKey);
    }
    return {};
  }

  /**
   * The edge's ban: the API never saw the request, so nothing is learned about its bucket (the probe is
   * given back) and it is not one of the API's invalid requests; the whole token is blocked instead.
   */
  private async edgeBan(route: RouteId, grant: Grant, headers: HeaderBag): Promise<{ blockedMs: number }> {
    if (grant.kind === 'probe') await this.redis.rlReleaseProbe(grant.bucketKey);
    const retryAfterS = num(headers.get('retry-after'));
    const retryAfterMs = retryAfterS !== null && retryAfterS > 0 ? retryAfterS * 1000 : this.o.edgeBanDefaultMs;
    const [began, blockedMs, inARow] = await this.redis.rlEdgeBan(
      this.key('block'),
      this.key('edge-ban'),
      this.key('edge-streak'),
      retryAfterMs,
      this.o.offsetMs,
      this.o.edgeBanMaxMs,
      24 * 3600_000,
    );
    this.events.edgeBan?.({
      began: began === 1,
      blockedMs,
      retryAfterMs,
      inARow,
      routeKey: route.routeKey,
      major: route.major,
    });
    return { blockedMs };
  }

  /** How long every request is still held by an edge ban (0 when none), across all processes. */
  async edgeBanRemaining(): Promise<number> {
    const [[sec, micro], until] = await Promise.all([this.redis.time(), this.redis.get(this.key('edge-ban'))]);
    const now = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    return Math.max(0, Number(until ?? 0) - now);
  }

  private async invalid(status: number): Promise<void> {
    const windowKey = this.key('invalid');
    const [count, blockMs] = await this.redis.rlInvalid(
      windowKey,
      this.key('block'),
      this.key('auth-failures'),
      String(status),
      this.o.invalidWindowMs,
      this.o.invalidBudget,
      this.o.authBackoffBaseMs,
      this.o.authBackoffMaxMs,
    );
    this.events.invalidRequest?.({ status, countInWindow: count, blockMs });
  }

  /**
   * Share of the global limit in use (0–1): requests in flight or answered within the last window, across
   * all processes, by Redis' clock like the grants. Low-priority callers (drift repair's audit-log reads) look at it to take only
   * what the syncs leave.
   */
  async globalLoad(): Promise<number> {
    const [sec, micro] = await this.redis.time();
    const now = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    const count = await this.redis.zcount(this.key('global'), now - this.window, '+inf');
    return count / Math.max(1, Math.floor(this.o.globalPerSecond));
  }

  /** Invalid requests counted in the current window, across all processes. */
  async invalidCount(): Promise<number> {
    return Number((await this.redis.get(this.key('invalid'))) ?? 0);
  }

  /**
   * The invalid-request budget as `rolelink doctor` reports it, across all processes: the count in the
   * current window, the budget at which this limiter holds every call, the window's length, the 401s in
   * it, and how long calls are held now (a 401 back-off, a spent budget or a global 429; 0 when not held).
   */
  async invalidBudget(): Promise<{
    count: number;
    budget: number;
    windowMs: number;
    authFailures: number;
    heldForMs: number;
  }> {
    const [[sec, micro], count, authFailures, blockedUntil] = await Promise.all([
      this.redis.time(),
      this.invalidCount(),
      this.redis.get(this.key('auth-failures')),
      this.redis.get(this.key('block')),
    ]);
    const now = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    return {
      count,
      budget: this.o.invalidBudget,
      windowMs: this.o.invalidWindowMs,
      authFailures: Number(authFailures ?? 0),
      heldForMs: Math.max(0, Number(blockedUntil ?? 0) - now),
    };
  }
}

const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-ratelimit-bucket',
  'x-ratelimit-global',
  'x-ratelimit-scope',
];

/**
 * A 429 the API would have sent carries X-RateLimit-* headers (at least its scope); the edge's ban
 * (Cloudflare's error 1015, an HTML page) carries none of them, only Retry-After.
 */
export function isEdgeAnswer(headers: HeaderBag): boolean {
  return RATE_LIMIT_HEADERS.every((h) => headers.get(h) === null);
}

/**
 * Seconds to keep away after an API 429. A bucket's own Reset-After is exact; Retry-After is whole seconds
 * rounded up (and the only one for global). For scope `shared` the resource, not the bucket, is limited:
 * retry_after can be far beyond Reset-After (the docs' example: 1336.57 s against 64.57 s), so the larger
 * wins. Retry-After is retry_after rounded up, read from the header since the body is REST's to read.
 */
function rateLimitWaitS(scope: string, global: boolean, resetAfter: number | null, retryAfter: number | null): number {
  if (global) return retryAfter ?? 1;
  if (scope === 'shared') return Math.max(retryAfter ?? 0, resetAfter ?? 0) || 1;
  return resetAfter ?? retryAfter ?? 1;
}

function num(v: string | null): number | null {
  if (v === null || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
