import { createHash } from 'node:crypto';
import { API } from '@discordjs/core/http-only';
import { DefaultRestOptions, REST, type RESTOptions, type ResponseLike } from '@discordjs/rest';
import type { Cluster, Redis } from 'ioredis';
import { PlatformLimiterUnavailableError, PlatformRateLimitedError } from './errors';
import { routeOf } from './route';
import { checkResponseShape } from './shapes/check-response';
import type { PlatformShapeError } from './shapes/shape-error';
import {
  SharedRateLimiter,
  type LimiterEvents,
  type Observation,
  type SharedLimiterOptions,
} from './rate-limit/shared-limiter';

export type PlatformClientOptions = {
  /** The platform's REST base, `https://discord.com/api` (PLATFORM_API_URL's form); a trailing `/v10` is taken as the version. */
  apiUrl: string;
  token: string;
  redis: Redis | Cluster;
  /** Redis key prefix (the service's QUEUE_PREFIX); keys are further scoped by a hash of the token. */
  keyPrefix: string;
  /**
   * How long one call may wait for a rate-limit slot before it throws PlatformRateLimitedError
   * instead (the sync worker yields its job rather than holding a worker slot).
   */
  maxWaitMs?: number;
  /** The same for an exhausted bucket (default 250 ms): a guild's window can be seconds away. */
  maxBucketWaitMs?: number;
  limiter?: Partial<Omit<SharedLimiterOptions, 'redis' | 'prefix'>>;
  events?: LimiterEvents & {
    response?(info: { method: string; routeKey: string; status: number }): void;
    /** The limiter's Redis failed: before the call (`acquire`: not sent) or after its answer (`observe`: answer kept). */
    limiterUnavailable?(info: { stage: 'acquire' | 'observe'; routeKey: string; message: string }): void;
    /** An answer of the wrong shape (shapes/routes.ts), just before the call throws it. */
    shapeError?(err: PlatformShapeError): void;
  };
  /** Per-request timeout (ms). */
  timeoutMs?: number;
};

export type PlatformClient = { api: API; rest: REST; limiter: SharedRateLimiter };

const BUCKET_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-ratelimit-bucket',
];

/**
 * The answer REST sees, without the bucket headers: the shared limiter has already learned from them,
 * and REST would otherwise keep its own per-process copy of the bucket and refuse requests (locally,
 * with RateLimitError) on a view that other processes' traffic makes stale. 429s keep every header.
 */
function withoutBucketHeaders(res: ResponseLike): ResponseLike {
  const headers = new Headers(res.headers);
  for (const h of BUCKET_HEADERS) headers.delete(h);
  return {
    body: res.body,
    headers,
    ok: res.ok,
    status: res.status,
    statusText: res.statusText,
    get bodyUsed() {
      return res.bodyUsed;
    },
    arrayBuffer: () => res.arrayBuffer(),
    json: () => res.json(),
    text: () => res.text(),
  };
}

/** Splits `http://host:port/api` or `…/api/v10` into REST's `api` and `version` options (default 10). */
function splitApiUrl(apiUrl: string): { api: string; version: string } {
  const trimmed = apiUrl.replace(/\/+$/, '');
  const m = /^(.*)\/v(\d+)$/.exec(trimmed);
  return m ? { api: m[1] as string, version: m[2] as string } : { api: trimmed, version: '10' };
}

/**
 * `@discordjs/core`'s API over `@discordjs/rest`, with rate limiting delegated to the Redis-shared
 * limiter. REST keeps its buckets per process, so N replicas would each spend the whole budget; here:
 * - every request goes through `makeRequest`, which first takes a slot from the shared limiter (waiting
 *   at most `maxWaitMs`, else throwing PlatformRateLimitedError) and reports the answer's headers back,
 *   then hands REST the answer without bucket headers so REST never limits on its stale local copy;
 * - REST's own global counter is disabled (`globalRequestsPerSecond` huge) and `rejectOnRateLimit` is
 *   on, so REST never sleeps in-process on a limit: a 429 or a locally known empty bucket surfaces as
 *   RateLimitError to the caller, which yields;
 * - `retries` only covers network errors and 5xx, each retry again passing through the limiter;
 * - a 429 from the platform's edge (the invalid-request ban: no X-RateLimit-* header, an HTML body) never
 *   reaches REST, which has no notion of it: the limiter blocks the whole token and the call throws
 *   PlatformRateLimitedError (`edge`) with the block's length. An API 429 goes on to REST, whose
 *   RateLimitError carries Retry-After and the bucket's reset (`classifyPlatformError` waits the larger);
 * - every answer the product reads is checked against its object's shape (shapes/) before REST parses
 *   it: one of the wrong shape throws PlatformShapeError naming the route and the field.
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const tokenId = createHash('sha256').update(options.token).digest('hex').slice(0, 12);
  const limiter = new SharedRateLimiter(
    { redis: options.redis, prefix: `${options.keyPrefix}:platform:${tokenId}`, ...options.limiter },
    options.events,
  );
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  const send = DefaultRestOptions.makeRequest;

  const makeRequest: RESTOptions['makeRequest'] = async (url, init): Promise<ResponseLike> => {
    const method = (init.method ?? 'GET').toUpperCase();
    const route = routeOf(method, url);
    const grant = await limiter.acquire(route, maxWaitMs, options.maxBucketWaitMs ?? 250).catch((err: unknown) => {
      if (err instanceof PlatformRateLimitedError) throw err;
      options.events?.limiterUnavailable?.({ stage: 'acquire', routeKey: route.routeKey, message: String(err) });
      throw new PlatformLimiterUnavailableError(err);
    });
    let res: ResponseLike;
    try {
      res = await send(url, init);
    } catch (err) {
      await limiter.abandon(grant).catch(() => undefined); // the send's own error is the one to report
      throw err;
    }
    // The platform has answered: a limiter that cannot record the answer must not turn it into a failure.
    // An add the platform made but the caller recorded as failed is never taken back when the user leaves
    // the list (the record says the role was never granted). The limiter misses one answer's headers.
    const seen = await limiter.observe(route, grant, res.status, res.headers).catch((err: unknown): Observation => {
      options.events?.limiterUnavailable?.({ stage: 'observe', routeKey: route.routeKey, message: String(err) });
      return {};
    });
    options.events?.response?.({ method, routeKey: route.routeKey, status: res.status });
    if (seen.edgeBan) {
      // REST would take the edge's ban for a bucket's 429 and report only its Retry-After; the caller
      // must learn that every request is held, and for how long the limiter holds them (it escalates).
      await res.arrayBuffer().catch(() => undefined);
      throw new PlatformRateLimitedError(seen.edgeBan.blockedMs, 'edge', route.routeKey, route.major);
    }
    if (res.status === 429) return res;
    return checkResponseShape(method, route.routeKey, withoutBucketHeaders(res), (err) =>
      options.events?.shapeError?.(err),
    );
  };

  const rest = new REST({
    ...splitApiUrl(options.apiUrl),
    globalRequestsPerSecond: 1_000_000,
    rejectOnRateLimit: () => true,
    retries: 2,
    timeout: options.timeoutMs ?? 15_000,
    offset: 0,
    makeRequest,
  });
  // REST forgets the token after a 401 and then fails every later call locally. The shared limiter
  // already backs off hard on 401s (escalating, all processes), so keep the configured token.
  const setToken = rest.setToken.bind(rest);
  rest.setToken = (token) => setToken(token ?? options.token);
  rest.setToken(options.token);
  return { api: new API(rest), rest, limiter };
}
