import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Plan } from '@rolelink/domain';
import { AppError, type Logger } from '@rolelink/runtime';
import { currentLink } from './auth';

export type RateLimitOptions = {
  /** A producer connection (fails fast while Redis is down; see ResilientRedisStore). */
  redis: Redis;
  /** Key prefix in Redis; replicas of one deployment must share it so they share the budget. */
  prefix: string;
  windowMs: number;
  /** Requests per window for one link's token, by the plan of its server. */
  perPlan: Record<Plan, number>;
  logger: Logger;
};

/**
 * rate-limit-redis loads its Lua scripts once, when the limiter is built, and keeps the promise. Our
 * producer connection has no offline queue, so a Redis that is not connected yet (every start: the
 * limiter is built before the socket is ready) or is down at that moment leaves a rejected promise that
 * the store never retries: the limiter would let everything through for the life of the process. This
 * store loads the scripts again after a failed command and tries once more, so the first request after
 * Redis is reachable is counted; while Redis stays down that costs two more commands that fail at once
 * (no offline queue).
 */
class ResilientRedisStore extends RedisStore {
  override async increment(key: string) {
    try {
      return await super.increment(key);
    } catch {
      this.reloadScripts();
      return super.increment(key);
    }
  }

  private reloadScripts(): void {
    const increment = this.loadIncrementScript();
    const get = this.loadGetScript();
    // Awaited by the next command; handled here so a failed load is not an unhandled rejection.
    increment.catch(() => undefined);
    get.catch(() => undefined);
    this.incrementScriptSha = increment;
    this.getScriptSha = get;
  }
}

/**
 * Per-token rate limit of the User Management API (issue 11), shared by every API replica through Redis
 * (fixed window of `windowMs`, one counter per link). Runs after authenticate(): the key is the link the
 * token opened, so resetting the token does not reset the budget, and the plan decides the limit.
 * Refused requests are not counted out of the budget (they count, like any request), so a client
 * hammering through a 429 stays limited.
 *
 * Headers: IETF draft 8 (`RateLimit-Policy: "premium";q=6000;w=60` and `RateLimit: "premium";r=5999;t=42`),
 * the policy named after the plan; a 429 adds `Retry-After` in seconds. When Redis fails the request is
 * let through (logged): the API keeps accepting writes without Redis (the outbox), and the limiter must
 * not be the part that takes it down.
 */
export function perTokenRateLimit(opts: RateLimitOptions): RequestHandler {
  const store = new ResilientRedisStore({
    prefix: `${opts.prefix}:api-rate:`,
    sendCommand: (command: string, ...args: string[]) => opts.redis.call(command, ...args) as Promise<RedisReply>,
  });
  const windowSeconds = Math.ceil(opts.windowMs / 1000);
  return rateLimit({
    windowMs: opts.windowMs,
    limit: (_req, res) => opts.perPlan[currentLink(res).plan],
    keyGenerator: (_req, res) => currentLink(res).id,
    identifier: (_req, res) => currentLink(res).plan,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    store,
    logger: {
      error: (err, message) => opts.logger.warn(message ?? 'rate limiter error', { err }),
      warn: (err, message) => opts.logger.warn(message ?? 'rate limiter warning', { err }),
    },
    handler: (req, res, next) => {
      const info = (req as typeof req & { rateLimit: RateLimitInfo }).rateLimit;
      const plan = currentLink(res).plan;
      const retryAfter = res.getHeader('Retry-After');
      next(new AppError(429,
        `Too many requests: at most ${info.limit.toLocaleString('en-US')} per ${windowSeconds} s for one token on the ${plan} plan. Retry after ${String(retryAfter)} s.`,
        'rate_limited'));
    },
  });
}
