import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { API } from '@discordjs/core/http-only';
import { QueueName } from '@rolelink/contracts';
import { readSyncLag } from '@rolelink/db';
import { Consumer, Producer } from '@rolelink/queue';
import type { Logger, Metrics } from '@rolelink/runtime';
import { followUps } from './jobs/follow-up';
import { timeJobs } from './jobs/job-timing';
import { ignoreUnknownJob, roleSyncHandlers } from './jobs/role-sync-handlers';

export type BotWorkerOptions = {
  db: Pool;
  api: API;
  /** Blocking connection for the BullMQ worker (maxRetriesPerRequest: null). */
  workerRedis: Redis;
  /** Connection for re-enqueues, the job scheduler and the reconcile's state. */
  redis: Redis;
  prefix: string;
  logger: Logger;
  metrics?: Metrics;
  concurrency: number;
  sliceMs: number;
  sliceChanges: number;
  lockDurationMs: number;
  /** Interval of the reconcile job scheduler; null leaves the scheduler alone (tests drive it). */
  reconcileEveryMs: number | null;
  rangeSpan?: number;
};

export type BotWorker = {
  worker: Worker;
  producer: Producer<typeof QueueName.roleSync>;
  /** Stops taking jobs and waits for the active slices; safe to call twice. */
  close(): Promise<void>;
};

/**
 * The bot worker: drains `role-sync` (`sync` slices per link, `reconcile`) through the catalog's typed
 * consumer. Each step is its own file under jobs/: the handlers, what a job enqueues after it, its timing.
 */
export async function createBotWorker(o: BotWorkerOptions): Promise<BotWorker> {
  const producer = new Producer(QueueName.roleSync, o.redis, o.prefix);
  reportQueueDepth(o.metrics, producer);
  // Every replica reports the same figures (they are the database's): dashboards and alerts take max().
  o.metrics?.syncLag(() => readSyncLag(o.db));
  const consumer = new Consumer(QueueName.roleSync, roleSyncHandlers(o, followUps(producer)), {
    connection: o.workerRedis,
    prefix: o.prefix,
    concurrency: o.concurrency,
    lockDuration: o.lockDurationMs,
    stalledInterval: Math.min(30_000, o.lockDurationMs),
    maxStalledCount: 3,
    unknownJob: ignoreUnknownJob(o.logger),
    around: timeJobs(o.metrics),
  });
  const { worker } = consumer;
  worker.on('error', (err) => o.logger.error('worker error', { err }));
  worker.on('failed', (job, err) => {
    const requestId = (job?.data as { requestId?: string } | undefined)?.requestId;
    o.logger.warn('job failed', { jobId: job?.id, name: job?.name, ...(requestId !== undefined && { requestId }), err: err.message });
  });

  if (o.reconcileEveryMs !== null) {
    await producer.queue.upsertJobScheduler('reconcile', { every: o.reconcileEveryMs }, { name: 'reconcile', data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } });
  }

  let closing: Promise<void> | null = null;
  return {
    worker,
    producer,
    close: () =>
      (closing ??= (async () => {
        await consumer.close();
        await producer.close();
      })()),
  };
}

/** rolelink_queue_jobs{queue="role-sync",state}, sampled at each scrape. */
function reportQueueDepth(metrics: Metrics | undefined, producer: Producer<typeof QueueName.roleSync>): void {
  metrics?.queueDepth(async () => {
    const counts = await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    return Object.entries(counts).map(([state, count]) => ({ queue: QueueName.roleSync, state, count }));
  });
}
