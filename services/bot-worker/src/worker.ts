import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { API } from '@discordjs/core/http-only';
import { jobCatalog, QueueName } from '@rolelink/contracts';
import { Producer } from '@rolelink/queue';
import type { Logger, Metrics } from '@rolelink/runtime';
import { runReconcile } from './reconcile/reconcile';
import { syncLinkSlice, type SliceResult } from './sync/sync-link';

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

/** Wake a yielding job this much before the platform's reset: the limiter waits out the rest inline. */
const EARLY_WAKE_MS = 100;

/**
 * The bot worker: drains `role-sync` (`sync` slices per link, `reconcile`), re-enqueueing a link
 * after each slice that did not finish its pass so other links get their turn (design: fairness).
 */
export async function createBotWorker(o: BotWorkerOptions): Promise<BotWorker> {
  const producer = new Producer(QueueName.roleSync, o.redis, o.prefix);
  const changes = o.metrics?.roleChanges();
  const durations = o.metrics?.jobDuration();
  o.metrics?.queueDepth(async () => {
    const counts = await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    return Object.entries(counts).map(([state, count]) => ({ queue: QueueName.roleSync, state, count }));
  });

  const requeue = (linkId: string, delayMs: number, dedupId = `link-${linkId}`) =>
    producer.add(
      'sync',
      { linkId },
      dedupId.startsWith('link-')
        ? { delay: Math.max(0, Math.round(delayMs)), deduplication: { id: dedupId, keepLastIfActive: true } }
        : { delay: Math.max(0, Math.round(delayMs)), deduplication: { id: dedupId, ttl: Math.max(1_000, Math.round(delayMs)) } },
    );

  async function follow(linkId: string, result: SliceResult): Promise<void> {
    if (result.kind === 'continue') await requeue(linkId, 0);
    else if (result.kind === 'yield') await requeue(linkId, Math.max(0, result.delayMs - EARLY_WAKE_MS));
    else if (result.retryInMs !== undefined) await requeue(linkId, result.retryInMs, `retry-link-${linkId}`);
  }

  async function processJob(job: Job): Promise<string> {
    const started = performance.now();
    let outcome = 'completed';
    try {
      if (job.name === 'sync') {
        const { linkId } = jobCatalog[QueueName.roleSync].sync.parse(job.data);
        const result = await syncLinkSlice(
          { db: o.db, api: o.api, logger: o.logger, jobId: job.id, sliceMs: o.sliceMs, sliceChanges: o.sliceChanges, rangeSpan: o.rangeSpan, metrics: changes && { change: (action, result) => changes.inc({ action, result }) } },
          linkId,
        );
        if (result.kind === 'yield') outcome = 'rate_limited';
        await follow(linkId, result);
        return result.kind;
      }
      if (job.name === 'reconcile') {
        const result = await runReconcile({
          db: o.db,
          api: o.api,
          redis: o.redis,
          prefix: o.prefix,
          logger: o.logger,
          jobId: job.id,
          budgetMs: Math.max(o.sliceMs, 10_000),
          enqueueSync: (linkId) => requeue(linkId, 0),
        });
        if (result.kind === 'continue') {
          await producer.add('reconcile', {}, { delay: Math.round(result.delayMs), deduplication: { id: 'reconcile-continue', ttl: Math.max(1_000, Math.round(result.delayMs)) } });
        }
        return result.kind;
      }
      o.logger.warn('unknown role-sync job ignored', { jobId: job.id, name: job.name });
      return 'ignored';
    } catch (err) {
      outcome = 'failed';
      throw err;
    } finally {
      durations?.observe({ queue: QueueName.roleSync, job: job.name, outcome }, (performance.now() - started) / 1000);
    }
  }

  const worker = new Worker(QueueName.roleSync, processJob, {
    connection: o.workerRedis,
    prefix: o.prefix,
    concurrency: o.concurrency,
    lockDuration: o.lockDurationMs,
    stalledInterval: Math.min(30_000, o.lockDurationMs),
    maxStalledCount: 3,
  });
  worker.on('error', (err) => o.logger.error('worker error', { err }));
  worker.on('failed', (job, err) => o.logger.warn('job failed', { jobId: job?.id, name: job?.name, err: err.message }));

  if (o.reconcileEveryMs !== null) {
    await producer.queue.upsertJobScheduler('reconcile', { every: o.reconcileEveryMs }, { name: 'reconcile', data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } });
  }

  let closing: Promise<void> | null = null;
  return {
    worker,
    producer,
    close: () =>
      (closing ??= (async () => {
        await worker.close();
        await producer.close();
      })()),
  };
}
