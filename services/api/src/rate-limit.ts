import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Plan } from '@rolelink/domain';
import { AppError, type Logger } from '@rolelink/runtime';
import { currentLink } from './auth';
import { LeasedRedisStore } from './rate-limit-store';

export type RateLimitOptions = {
  /** A producer connection: no offline queue, so while Redis is down a request fails fast and is let through. */
  redis: Redis;
  /** Key prefix in Redis; replicas of one deployment must share it so they share the budget. */
  prefix: string;
  windowMs: number;
  /** Requests per window for one link's token, by the plan of its server. */
  perPlan: Record<Plan, number>;
  logger: Logger;
};

/**
 * Per-token rate limit of the User Management API (issue 11), shared by every API replica through Redis
 * (fixed window of `windowMs`, one counter per link, served from leases: see LeasedRedisStore). Runs after
 * authenticate(): the key is the link the token opened, so resetting the token does not reset the budget,
 * and the plan decides the limit.
 * A fixed window does not reopen before it resets, so a client hammering through a 429 stays limited;
 * refused requests take nothing from the budget (they matter only if a plan upgrade raises the limit).
 *
 * Headers: IETF draft 8 (`RateLimit-Policy: "premium";q=6000;w=60` and `RateLimit: "premium";r=5999;t=42`),
 * the policy named after the plan; a 429 adds `Retry-After` in seconds. When Redis fails the request is
 * let through (logged): the API keeps accepting writes without Redis (the outbox), and the limiter must
 * not be the part that takes it down.
 */
export function perTokenRateLimit(opts: RateLimitOptions): RequestHandler {
  // The store needs the limit to size its leases; the plan is known from the link authenticate() loaded,
  // so the key generator notes it just before express-rate-limit asks the store.
  const limits = new Map<string, number>();
  const store = new LeasedRedisStore({
    redis: opts.redis,
    prefix: `${opts.prefix}:api-rate:`,
    windowMs: opts.windowMs,
    limitOf: (key) => limits.get(key) ?? 1,
  });
  const windowSeconds = Math.ceil(opts.windowMs / 1000);
  return rateLimit({
    windowMs: opts.windowMs,
    limit: (_req, res) => opts.perPlan[currentLink(res).plan],
    keyGenerator: (_req, res) => {
      const link = currentLink(res);
      limits.set(link.id, opts.perPlan[link.plan]);
      return link.id;
    },
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
      next(new AppError(429, `Too many requests: at most ${info.limit.toLocaleString('en-US')} per ${windowSeconds} s for one token on the ${plan} plan. Retry after ${String(retryAfter)} s.`, 'rate_limited'));
    },
  });
}
