import { schedulerCatalog, type QueueName, type SchedulerOf } from '@rolelink/contracts';
import { DependencyLog, type Logger } from '@rolelink/runtime';
import type { RedisClient } from './connection';
import { Consumer, type JobHandlers } from './consumer';
import { Producer } from './producer';
import { ensureSchedulers, scheduled, type SchedulerKeeper } from './schedulers';

/** One scheduler of the catalog: what its job runs, and how often (absent or 0: not (re)scheduled; tests run it). */
export type PeriodicJob = { run: () => Promise<unknown>; everyMs?: number | null };

export type PeriodicJobsOptions<Q extends QueueName> = {
  /** A queue that carries only scheduled jobs (the API's `maintenance`, the dashboard's `dashboard-maintenance`). */
  queue: Q;
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  /** The service's one log of Redis's state (one line per change, not per attempt); a new one by default. */
  dependencies?: DependencyLog;
  /** Every scheduler of the catalog on this queue, by id. */
  jobs: Record<SchedulerOf<Q>, PeriodicJob>;
  concurrency?: number;
};

export type PeriodicJobs = { keeper: SchedulerKeeper; close(): Promise<void> };

/**
 * A service's periodic work as jobs of one queue, on the catalog's schedulers: every replica consumes the
 * queue and upserts the schedulers, BullMQ keeps one scheduler per id, so N replicas still run each job
 * once per interval, and the jobs show in `rolelink_queue_jobs`. Nothing here blocks start-up: while
 * Redis is away the schedulers are retried and no job runs; the work catches up on its next run (it reads
 * what is due from PostgreSQL). A job that throws is logged as one line naming it.
 */
export function startPeriodicJobs<Q extends QueueName>(o: PeriodicJobsOptions<Q>): PeriodicJobs {
  const jobs = new Producer(o.queue, o.connection, o.prefix);
  const dependencies = o.dependencies ?? new DependencyLog(o.logger);
  jobs.queue.on('error', dependencies.listener('redis', `${o.queue} queue error`));
  const ids = Object.keys(o.jobs) as SchedulerOf<Q>[];
  // The queue's handlers by job name: each scheduler runs one job of its own.
  const handlers = Object.fromEntries(
    ids.map((id) => [schedulerCatalog[id].job, () => o.jobs[id].run()]),
  ) as unknown as JobHandlers<Q>;
  const consumer = new Consumer(o.queue, handlers, {
    connection: o.connection,
    prefix: o.prefix,
    concurrency: o.concurrency ?? ids.length,
  });
  consumer.worker.on('error', dependencies.listener('redis', `${o.queue} worker error`));
  consumer.worker.on('failed', (job, err) =>
    o.logger.warn(`${o.queue} job failed`, { jobId: job?.id, job: job?.name, error: err.message }),
  );
  const keeper = ensureSchedulers({
    redis: o.connection,
    logger: o.logger,
    schedulers: ids.map((id) => scheduled(jobs, id, o.jobs[id].everyMs)),
  });
  let closing: Promise<void> | null = null;
  return {
    keeper,
    close() {
      closing ??= (async () => {
        keeper.stop();
        await consumer.close();
        await jobs.close();
      })();
      return closing;
    },
  };
}
