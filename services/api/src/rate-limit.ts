import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type { RedisClient } from '@rolelink/queue';
import type { Plan } from '@rolelink/domain';
import { AppError, type Logger } from '@rolelink/runtime';
import type { LinkStep } from './links/link-pipeline';
import { LeasedRedisStore, type LocalHit } from './rate-limit-store';

export type RateLimitOptions = {
  /** A producer connection: no offline queue, so while Redis is down a request fails fast and is let through. */
  redis: RedisClient;
  /** Key prefix in Redis; replicas of one deployment must share it so they share the budget. */
  prefix: string;
  windowMs: number;
  /** Requests per window for one link's token, by the plan of its server. */
  perPlan: Record<Plan, number>;
  logger: Logger;
};

/**
 * Per-token rate limit of the User Management API, shared by every API replica through Redis
 * (fixed window of `windowMs`, one counter per link, served from leases: see LeasedRedisStore). A step of
 * the link pipeline, after authentication: the key is the link the token opened, so resetting the token does not reset the budget,
 * and the plan decides the limit.
 * A fixed window does not reopen before it resets, so a client hammering through a 429 stays limited;
 * refused requests take nothing from the budget (they matter only if a plan upgrade raises the limit).
 *
 * Headers: IETF draft 8 (`RateLimit-Policy: "premium"; q=6000; w=60; pk=:…:` and `RateLimit: "premium";
 * r=5999; t=42`), the policy named after the plan, `pk` a hash of the partition key (the link id, never
 * the token); a 429 adds `Retry-After` in seconds. When Redis fails the request is let through (logged):
 * the API keeps accepting writes without Redis (the outbox), and the limiter must not be the part that
 * takes it down.
 *
 * Why not express-rate-limit (the first version used it, and these headers are byte for byte what its
 * draft-8 mode wrote): it awaits every step of every request (skip, key, store, limit, name) and hashes
 * the partition key each time, a visible share of a POST's CPU, while a hit served
 * from a lease needs no await at all.
 */
export function perTokenRateLimit(opts: RateLimitOptions): LinkStep {
  // The store needs the limit to size its leases; the plan is known from the link authentication opened,
  // so the step notes it just before it asks the store.
  const limits = new Map<string, number>();
  const store = new LeasedRedisStore({
    redis: opts.redis,
    prefix: `${opts.prefix}:api-rate:`,
    windowMs: opts.windowMs,
    limitOf: (key) => limits.get(key) ?? 1,
  });
  const windowSeconds = Math.ceil(opts.windowMs / 1000);
  const partitionKeys = new Map<string, string>();
  /** The header's `pk`: 12 hex digits of the link id's SHA-256, base64-encoded (what express-rate-limit sends). */
  const partitionKey = (key: string): string => {
    let pk = partitionKeys.get(key);
    if (pk === undefined) {
      if (partitionKeys.size >= 10_000) partitionKeys.clear(); // bounded; recomputed on demand
      pk = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      partitionKeys.set(key, pk);
    }
    return pk;
  };

  /** Sets the headers; throws the 429 when over the limit. */
  const decide = (res: Response, key: string, plan: Plan, limit: number, hit: LocalHit): void => {
    const resetSeconds = Math.max(0, Math.ceil((hit.resetAt - Date.now()) / 1000));
    if (!res.headersSent) {
      res.setHeader('RateLimit', `"${plan}"; r=${Math.max(limit - hit.totalHits, 0)}; t=${resetSeconds}`);
      res.setHeader('RateLimit-Policy', `"${plan}"; q=${limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`);
    }
    if (hit.totalHits <= limit) return;
    if (!res.headersSent) res.setHeader('Retry-After', String(resetSeconds));
    throw new AppError(
      429,
      `Too many requests: at most ${limit.toLocaleString('en-US')} per ${windowSeconds} s for one token on the ${plan} plan. Retry after ${resetSeconds} s.`,
      'rate_limited',
    );
  };

  // A hit served from a lease is decided without a promise; only a take from Redis returns one.
  return (res, link) => {
    const limit = opts.perPlan[link.plan];
    limits.set(link.id, limit);
    const local = store.takeLocal(link.id);
    if (local) return decide(res, link.id, link.plan, limit, local);
    return store.increment(link.id).then(
      (hit) => decide(res, link.id, link.plan, limit, { totalHits: hit.totalHits, resetAt: hit.resetTime.getTime() }),
      (err: unknown) => {
        opts.logger.warn('rate limiter: RedisClient failed, request let through without a limit', { err });
      },
    );
  };
}
