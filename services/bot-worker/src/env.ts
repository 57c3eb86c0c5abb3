import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime';

/** The bot worker's configuration: parsed once at start (`loadEnv()` in main.ts), fails fast listing every problem. */
export const envSchema = z
  .object({
    NODE_ENV: envFields.nodeEnv,
    LOG_LEVEL: envFields.logLevel,
    SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
    DATABASE_URL: envFields.databaseUrl,
    DATABASE_SESSION_URL: envFields.databaseSessionUrl,
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
    /**
     * Drift repair (docs/sync-engine.md "Drift repair"): each guild with active links has its audit log read
     * at most this often (more rarely when the budget below cannot cover every guild that often); 0 turns
     * the poll off (the reconcile alone then repairs drift).
     */
    DRIFT_POLL_EVERY_MS: z.coerce
      .number()
      .int()
      .refine((v) => v === 0 || v >= 1_000, 'DRIFT_POLL_EVERY_MS must be 0 (off) or at least 1000')
      .default(30_000),
    /** The poll's guaranteed share of PLATFORM_GLOBAL_PER_SECOND, always available to it (2/s of 50/s). */
    DRIFT_POLL_SHARE: z.coerce.number().min(0.001).max(0.5).default(0.04),
    /** The most it may take, only while the syncs leave the global budget at least half unused (15/s of 50/s). */
    DRIFT_POLL_MAX_SHARE: z.coerce.number().min(0.001).max(0.5).default(0.3),
    /** One job works at most this long / this many platform calls on a link, then re-enqueues it (fairness). */
    SLICE_MS: z.coerce.number().int().min(50).default(2_000),
    SLICE_CHANGES: z.coerce.number().int().min(1).default(500),
    /** BullMQ lock: a killed worker's job is taken over after this (stalled-job recovery). */
    WORKER_LOCK_MS: z.coerce.number().int().min(1_000).default(30_000),
    /** Notifications: at most one message per guild per event kind in this window (docs/dashboard.md "Notifications"). */
    NOTIFY_WINDOW_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(10 * 60_000),
    /** How often the worker looks for notifications to deliver (the latency of a notification). */
    NOTIFY_SWEEP_MS: z.coerce.number().int().min(500).default(5_000),
    /** How long a delivered notification stays listed (docs/dashboard.md "Notifications"); older ones are deleted. */
    NOTIFICATION_RETENTION_DAYS: envFields.retentionDays(90),
    /** How often the notification retention sweep deletes notifications past NOTIFICATION_RETENTION_DAYS. */
    RETENTION_SWEEP_EVERY_MS: envFields.retentionSweepEveryMs,
    /** How often the link purge deletes the rows of deleted links whose roles are stripped (0: never). */
    PURGE_EVERY_MS: z.coerce.number().int().min(0).default(30_000),
    /** The notifications' share of PLATFORM_GLOBAL_PER_SECOND while the syncs keep it busy (5/s of 50/s: DMs and channel posts). */
    NOTIFY_SHARE: z.coerce.number().min(0.001).max(0.5).default(0.1),
    /** The most they may take, only while the syncs leave the global budget at least half unused (15/s of 50/s). */
    NOTIFY_MAX_SHARE: z.coerce.number().min(0.001).max(0.5).default(0.3),
  })
  .superRefine((env, ctx) => {
    if (env.DRIFT_POLL_MAX_SHARE < env.DRIFT_POLL_SHARE)
      ctx.addIssue({
        code: 'custom',
        path: ['DRIFT_POLL_MAX_SHARE'],
        message: `must be at least DRIFT_POLL_SHARE (${env.DRIFT_POLL_SHARE})`,
      });
    if (env.NOTIFY_MAX_SHARE < env.NOTIFY_SHARE)
      ctx.addIssue({
        code: 'custom',
        path: ['NOTIFY_MAX_SHARE'],
        message: `must be at least NOTIFY_SHARE (${env.NOTIFY_SHARE})`,
      });
    // Under load the shares take their floors: the syncs must keep at least half the global limit.
    if (env.DRIFT_POLL_SHARE + env.NOTIFY_SHARE > 0.5) {
      ctx.addIssue({
        code: 'custom',
        path: ['NOTIFY_SHARE'],
        message: `DRIFT_POLL_SHARE + NOTIFY_SHARE must be at most 0.5 (the syncs keep at least half the global limit), got ${env.DRIFT_POLL_SHARE} + ${env.NOTIFY_SHARE}`,
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
