import type { Worker } from 'bullmq';
import type { RedisClient } from '@rolelink/queue';
import { QueueName } from '@rolelink/contracts';
import { Consumer, ensureSchedulers, Producer, redisAnswers, scheduled, type SchedulerKeeper } from '@rolelink/queue';
import { DependencyLog } from '@rolelink/runtime';
import type { BrokerContext } from './context';
import { closeEventLinkLocks } from './events/link-locks';
import { pluginCallsHandlers } from './plugin-calls-handlers';

export type BrokerWorkerOptions = {
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  /** Period of the health poll; omit to not (re)schedule it (tests drive polls themselves). */
  healthPollEveryMs?: number;
  /** Period of the event-delivery sweep; omit to not (re)schedule it (tests drive it themselves). */
  eventSweepEveryMs?: number;
  /** Period of the event retention sweep (RETENTION_SWEEP_EVERY_MS); omit to not (re)schedule it. */
  eventRetentionEveryMs?: number;
  /** Where lost-connection errors go: one line per Redis outage, not one per reconnect attempt (default: a log of its own). */
  dependencies?: DependencyLog;
};

export type BrokerWorker = {
  worker: Worker;
  /** The typed producer of `plugin-calls` (health checks, the scheduler); `jobs.queue` for counts. */
  jobs: Producer<typeof QueueName.pluginCalls>;
  /**
   * Resolves once the worker takes jobs and its schedulers (health poll, event sweep, event retention) are registered. They
   * are kept registered as in the bot worker (@rolelink/queue ensureSchedulers): retried while Redis is
   * away and registered again after every reconnect, since a Redis that restarts empty loses them.
   */
  ready(): Promise<void>;
  /** Stops taking jobs and waits for running calls (each ends within its plugin timeout). Safe twice. */
  close(): Promise<void>;
};

/** The broker's typed consumer of `plugin-calls` (packages/queue), built from injected dependencies. */
export function createBrokerWorker(ctx: BrokerContext, options: BrokerWorkerOptions): BrokerWorker {
  // Shared with the worker for plain commands; BullMQ opens its own blocking connection from it.
  const jobs = new Producer(QueueName.pluginCalls, options.connection, options.prefix);
  const dependencies = options.dependencies ?? new DependencyLog(ctx.logger);
  jobs.queue.on('error', dependencies.listener('redis', 'plugin-calls queue error'));
  const { worker } = new Consumer(QueueName.pluginCalls, pluginCallsHandlers(ctx, jobs, options.concurrency), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
  });
  worker.on('error', dependencies.listener('redis', 'plugin-calls worker error'));
  worker.on('failed', (job, err) =>
    ctx.logger.warn('plugin-calls job failed', {
      jobId: job?.id,
      job: job?.name,
      attempts: job?.attemptsMade,
      error: err.message,
    }),
  );

  let keeper: SchedulerKeeper | null = null;
  let closing: Promise<void> | null = null;
  return {
    worker,
    jobs,
    async ready() {
      await worker.waitUntilReady();
      keeper ??= ensureSchedulers({
        redis: options.connection,
        logger: ctx.logger,
        schedulers: [
          scheduled(jobs, 'plugin-health', options.healthPollEveryMs),
          scheduled(jobs, 'plugin-events-sweep', options.eventSweepEveryMs),
          scheduled(jobs, 'plugin-events-retention', options.eventRetentionEveryMs),
        ],
      });
      await keeper.firstRegistration;
    },
    close() {
      closing ??= (async () => {
        keeper?.stop();
        // During a Redis outage: no wait for running calls, whose results could not be recorded (Consumer.close).
        await worker.close(!redisAnswers(options.connection));
        await jobs.close();
        // After the worker: its running deliveries released their links first.
        await closeEventLinkLocks(ctx);
      })();
      return closing;
    },
  };
}
