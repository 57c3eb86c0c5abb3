import type { RedisClient } from '@rolelink/queue';
import type { Pool } from 'pg';
import type { API } from '@discordjs/core/http-only';
import type { DependencyLog, Logger, Metrics } from '@rolelink/runtime';
import type { BudgetShareOptions } from './budget-share';

/** What the bot worker is started with (main.ts from the environment, or a test), read by worker.ts and the job handlers. */
export type BotWorkerOptions = {
  db: Pool;
  /** Session-bound work (a sync slice's link lock): PostgreSQL directly behind a pooler; unset, `db`. */
  sessionDb?: Pool;
  api: API;
  /** Blocking connection for the BullMQ worker (maxRetriesPerRequest: null). */
  workerRedis: RedisClient;
  /** Connection for re-enqueues, the job scheduler and the reconcile's state. */
  redis: RedisClient;
  prefix: string;
  /** The bot application's key (`applicationKey(token)` of @rolelink/platform-client): its bot_application row. */
  appKey: string;
  logger: Logger;
  /** Where the BullMQ workers' lost-connection errors go: one line per Redis outage, not one per attempt (default: a log of its own). */
  dependencies?: DependencyLog;
  metrics?: Metrics;
  concurrency: number;
  sliceMs: number;
  sliceChanges: number;
  lockDurationMs: number;
  /** Interval of the reconcile job scheduler; null leaves the scheduler alone (tests drive it). */
  reconcileEveryMs: number | null;
  rangeSpan?: number;
  /** Notifications: at most one message per guild per event kind in this window (default 10 minutes). */
  notifyWindowMs?: number;
  /** Interval of the notify sweep scheduler; null or absent leaves it alone (tests add `sweep` jobs). */
  notifySweepEveryMs?: number | null;
  /** Delivered notifications older than this many days are deleted (NOTIFICATION_RETENTION_DAYS; default 90). */
  notificationRetentionDays?: number;
  /** Interval of the notification retention scheduler; null or absent leaves it alone (tests add `retention` jobs). */
  retentionEveryMs?: number | null;
  /** Interval of the link purge scheduler; null or absent leaves it alone (tests add `link-purge` jobs). */
  purgeEveryMs?: number | null;
  /**
   * The notifications' share of the global budget across all workers (NOTIFY_SHARE always, up to
   * NOTIFY_MAX_SHARE while the budget has room): each of their platform requests waits for it. Absent:
   * not capped (tests).
   */
  notifyBudget?: BudgetShareOptions;
  /**
   * Drift repair (docs/sync-engine.md "Drift repair"): each guild's audit log is read at most every
   * `everyMs`, within `floorPerSecond` (always) to `maxPerSecond` (while the global budget has room) reads
   * per second across all workers. Absent or `everyMs` 0: no poll (the reconcile alone repairs drift).
   */
  drift?: { everyMs: number; floorPerSecond: number; maxPerSecond: number; globalLoad?: () => Promise<number> };
};
