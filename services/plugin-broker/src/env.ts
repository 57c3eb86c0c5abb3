import { z } from 'zod';
import { brokerInternalToken } from '@rolelink/contracts';
import { envFields, parseEnv, SECRET_KEY_REQUIRED } from '@rolelink/runtime';

/** The plugin broker's configuration: parsed once at start (`loadEnv()` in main.ts), fails fast listing every problem. */
export const envSchema = z
  .object({
    NODE_ENV: envFields.nodeEnv,
    LOG_LEVEL: envFields.logLevel,
    SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
    DATABASE_URL: envFields.databaseUrl,
    DATABASE_SESSION_URL: envFields.databaseSessionUrl,
    DB_POOL_MAX: z.coerce.number().int().min(2).max(100).default(10),
    REDIS_URL: envFields.redisUrl,
    QUEUE_PREFIX: envFields.queuePrefix,
    /** The token key, or several with IDs (ROLELINK_SECRET_KEYS, newest first); secretKeyring() in main.ts joins them. */
    ROLELINK_SECRET_KEY: envFields.secretKey.optional(),
    ROLELINK_SECRET_KEYS: envFields.secretKeys,
    /** Hosts or IPs that may be plugin hosts although private (tests, local runs); a warning is logged at start. */
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
    /** Bearer of the internal routes (register, config); the dashboard and the CLI send the same value. */
    BROKER_INTERNAL_TOKEN: brokerInternalToken,
    /** /healthz, /readyz, /metrics and the internal routes. */
    BROKER_PORT: envFields.port(3002),
    BROKER_HOST: z.string().default('0.0.0.0'),
    /** Plugin calls in flight per broker process (they are I/O bound). */
    BROKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(32),
    HEALTH_POLL_EVERY_MS: z.coerce.number().int().min(1000).default(60_000),
    /** Event delivery (docs/api.md "Events to plugins"): first retry after BASE, doubling up to MAX, dropped after WINDOW. */
    EVENT_RETRY_BASE_MS: z.coerce.number().int().min(1).default(10_000),
    EVENT_RETRY_MAX_MS: z.coerce.number().int().min(1).default(3_600_000),
    EVENT_RETRY_WINDOW_MS: z.coerce
      .number()
      .int()
      .min(1)
      .default(24 * 3_600_000),
    /** How often the broker looks for events due (new ones, retries); each look is one indexed query. */
    EVENT_SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(5_000),
    /** How long a delivered or dropped plugin event and its attempts stay (docs/api.md "Events to plugins"). */
    EVENT_RETENTION_DAYS: envFields.retentionDays(14),
    /** How often the event retention sweep deletes events past EVENT_RETENTION_DAYS. */
    RETENTION_SWEEP_EVERY_MS: envFields.retentionSweepEveryMs,
  })
  .refine(...SECRET_KEY_REQUIRED);

export type BrokerEnv = z.infer<typeof envSchema>;

/** Tests pass their own variables; main.ts passes none (process.env). */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): BrokerEnv {
  return parseEnv(envSchema, source);
}
