import type { RedisClient } from '@rolelink/queue';
import { QueueName } from '@rolelink/contracts';
import { Consumer, ensureSchedulers, Producer, scheduled, type SchedulerKeeper } from '@rolelink/queue';
import { DependencyLog, type Logger } from '@rolelink/runtime';
import type { ExpirySweeper } from './expiry-sweeper';
import type { OutboxSweeper } from './outbox-sweeper';

export type MaintenanceOptions = {
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  /** The service's one log of Redis's state (one line per change, not per attempt); a new one by default. */
  dependencies?: DependencyLog;
  sweeper: Pick<OutboxSweeper, 'sweepOnce'>;
  expiries: Pick<ExpirySweeper, 'sweepOnce'>;
  /** SWEEP_EVERY_MS and EXPIRY_SWEEP_EVERY_MS; absent: not (re)scheduled (tests run the sweeps themselves). */
  sweepEveryMs?: number;
  expirySweepEveryMs?: number;
};

export type Maintenance = { keeper: SchedulerKeeper; close(): Promise<void> };

/**
 * The API's periodic work as jobs of the `maintenance` queue, on the catalog's schedulers `outbox-sweep` and
 * `expiry-sweep` (contracts' schedulerCatalog), like every other periodic job of the service: every replica
 * consumes the queue and upserts the schedulers, BullMQ keeps one scheduler per id, so N replicas still
 * sweep once per interval (a timer per process swept N times), and the jobs show in `rolelink_queue_jobs`.
 * Nothing here blocks start-up: while Redis is away the schedulers are retried and no sweep runs; the
 * sweeps catch up on their next run (they read what is due from PostgreSQL).
 */
export function startMaintenance(o: MaintenanceOptions): Maintenance {
  const jobs = new Producer(QueueName.maintenance, o.connection, o.prefix);
  const dependencies = o.dependencies ?? new DependencyLog(o.logger);
  jobs.queue.on('error', dependencies.listener('redis', 'maintenance queue error'));
  const consumer = new Consumer(
    QueueName.maintenance,
    {
      'outbox-sweep': () => o.sweeper.sweepOnce(),
      'expiry-sweep': () => o.expiries.sweepOnce(),
    },
    { connection: o.connection, prefix: o.prefix, concurrency: 2 },
  );
  consumer.worker.on('error', dependencies.listener('redis', 'maintenance worker error'));
  consumer.worker.on('failed', (job, err) =>
    o.logger.warn('maintenance job failed', { jobId: job?.id, job: job?.name, error: err.message }),
  );
  const keeper = ensureSchedulers({
    redis: o.connection,
    logger: o.logger,
    schedulers: [
      scheduled(jobs, 'outbox-sweep', o.sweepEveryMs),
      scheduled(jobs, 'expiry-sweep', o.expirySweepEveryMs),
    ],
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
