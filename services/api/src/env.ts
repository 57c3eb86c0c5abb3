import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime';

/** The API's configuration: parsed once at start (`loadEnv()` in main.ts), fails fast listing every problem. */
export const envSchema = z.object({
  NODE_ENV: envFields.nodeEnv,
  LOG_LEVEL: envFields.logLevel,
  SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
  API_PORT: envFields.port(3000),
  API_HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: envFields.databaseUrl,
  DATABASE_SESSION_URL: envFields.databaseSessionUrl,
  DB_POOL_MAX: z.coerce.number().int().min(2).max(200).default(20),
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  /**
   * How often the outbox sweep re-enqueues links whose sync request may have been lost, and the upload and
   * idempotency sweeps collect closed or expired uploads and expired keys.
   */
  SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(30_000),
  /** How often the expiry sweeper removes memberships whose expiry has passed (docs/api.md "Memberships that expire"). */
  EXPIRY_SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(5_000),
  /** Per-token rate limit of the User Management API (docs/api.md "Rate limits"); `off` only for benchmarks and emergencies. */
  API_RATE_LIMIT: z.enum(['on', 'off']).default('on'),
  API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Requests per window for one token of a free-plan server. */
  API_RATE_LIMIT_FREE: z.coerce.number().int().min(1).default(600),
  /** Requests per window for one token of a premium server. */
  API_RATE_LIMIT_PREMIUM: z.coerce.number().int().min(1).default(6_000),
});

export type ApiEnv = z.infer<typeof envSchema>;

/** Tests pass their own variables; main.ts passes none (process.env). */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseEnv(envSchema, source);
}
