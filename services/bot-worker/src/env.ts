import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime';

/** The bot worker's configuration: parsed once at start (`loadEnv()` in main.ts), fails fast listing every problem. */
export const envSchema = z.object({
  NODE_ENV: envFields.nodeEnv,
  LOG_LEVEL: envFields.logLevel,
  SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
  DATABASE_URL: envFields.databaseUrl,
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  /** The platform's REST base, e.g. the emulator's `http://127.0.0.1:3900/api` (REST appends /v10); production must set it. */
  PLATFORM_API_URL: envFields.platformApiUrl,
  PLATFORM_BOT_TOKEN: envFields.platformBotToken,
  /** The platform's global per-token limit (requests/s); every worker process shares it. */
  PLATFORM_GLOBAL_PER_SECOND: z.coerce.number().positive().default(50),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(8),
  WORKER_PORT: envFields.port(4020),
  WORKER_HOST: z.string().default('0.0.0.0'),
  /** 0 turns the reconcile scheduler off (benchmarks whose applied records the platform cannot know). */
  RECONCILE_EVERY_MS: z.coerce
    .number()
    .int()
    .refine((v) => v === 0 || v >= 1_000, 'RECONCILE_EVERY_MS must be 0 (off) or at least 1000')
    .default(15 * 60_000),
  /** One job works at most this long / this many platform calls on a link, then re-enqueues it (fairness). */
  SLICE_MS: z.coerce.number().int().min(50).default(2_000),
  SLICE_CHANGES: z.coerce.number().int().min(1).default(500),
  /** BullMQ lock: a killed worker's job is taken over after this (stalled-job recovery). */
  WORKER_LOCK_MS: z.coerce.number().int().min(1_000).default(30_000),
});

export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
