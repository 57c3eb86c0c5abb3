import type { Pool } from 'pg';
import type { RedisClient } from '@rolelink/queue';
import type { API } from '@discordjs/core/http-only';
import type { Logger, Metrics } from '@rolelink/runtime';

/**
 * What both repairs of the platform's state need (the periodic reconcile, reconcile/, and the drift
 * poll, drift/): they read the platform, correct the applied record and enqueue the links' syncs. Beside
 * both rather than in jobs/, which runs them: a repair depends on what it is given, not on who runs it.
 */
export type RepairDeps = {
  db: Pool;
  api: API;
  redis: RedisClient;
  /** Redis key prefix (QUEUE_PREFIX). */
  prefix: string;
  logger: Logger;
  /** The job running this repair, for its log line. */
  jobId?: string;
  enqueueSync(linkId: string): Promise<unknown>;
  /** The bot application's key (`applicationKey` of the token): its `bot_application` row. */
  appKey: string;
  /** Counts a guild the repair could not read (rolelink_repair_blocked_total). */
  blocked?(job: 'reconcile' | 'drift', reason: 'members_intent' | 'guild_unavailable'): void;
};

/** rolelink_repair_blocked_total{job,reason}: one per guild read a repair could not make. */
export function repairBlocked(
  metrics: Metrics | undefined,
): ((job: 'reconcile' | 'drift', reason: 'members_intent' | 'guild_unavailable') => void) | undefined {
  const counter = metrics?.repairBlocked();
  return counter && ((job, reason) => counter.inc({ job, reason }));
}

type Shared = Pick<RepairDeps, 'db' | 'api' | 'redis' | 'prefix' | 'appKey' | 'logger' | 'blocked'>;

/** What every repair takes as it is from the worker's options (BotWorkerOptions), its blocked counter made once. */
export function sharedRepairDeps(o: Omit<Shared, 'blocked'> & { metrics?: Metrics }): Shared {
  return {
    db: o.db,
    api: o.api,
    redis: o.redis,
    prefix: o.prefix,
    appKey: o.appKey,
    logger: o.logger,
    blocked: repairBlocked(o.metrics),
  };
}
