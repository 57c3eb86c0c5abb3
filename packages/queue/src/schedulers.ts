import type { RedisClient } from './connection';
import { schedulerCatalog, type JobData, type JobName, type QueueName, type SchedulerOf } from '@rolelink/contracts';
import { withDeadline, type Logger } from '@rolelink/runtime';
import { backoffMs, type Backoff } from '@rolelink/wire-types/backoff';
import type { Producer } from './producer';

/**
 * One repeating job of the catalog a service (api, bot worker, plugin broker) keeps registered. `upsert` must be idempotent (BullMQ's upsertJobScheduler
 * is: one scheduler per id), as every replica runs it at start and again after each Redis reconnect.
 */
export type JobScheduler = { id: string; upsert(): Promise<void> };

/** What a scheduled job leaves behind: its last runs, for `rolelink_queue_jobs` and for a look in Redis. */
const SCHEDULED_JOB_RETENTION = { removeOnComplete: 100, removeOnFail: 100 };

/**
 * The catalog's scheduler `id` (contracts' schedulerCatalog) on its queue's producer, running every
 * `everyMs`; null (left alone) when the interval is absent or 0 (tests drive the job themselves).
 */
export function scheduled<Q extends QueueName>(
  producer: Producer<Q>,
  id: SchedulerOf<Q>,
  everyMs: number | null | undefined,
): JobScheduler | null {
  const { job } = schedulerCatalog[id];
  if (!everyMs) return null;
  // Every scheduled job's payload is {} (the catalog's schemas say so; schedule() parses it).
  return {
    id,
    upsert: () =>
      producer.schedule(id, everyMs, job as JobName<Q>, {} as JobData<Q, JobName<Q>>, SCHEDULED_JOB_RETENTION),
  };
}

export type SchedulerKeeper = {
  /** True once every scheduler was registered (readiness); stays true through later Redis outages. */
  registered(): boolean;
  /** Resolves when `registered()` first becomes true (never rejects; never resolves after stop() if it was not). */
  firstRegistration: Promise<void>;
  /** Stops retrying and listening; an upsert in flight may still finish. */
  stop(): void;
};

/**
 * Retry delays, doubling from `firstMs` to `maxMs`, and how long one attempt may take: BullMQ waits for
 * its connection to be ready before a command and does not give up while Redis refuses connections, so
 * an attempt that hangs is abandoned (an upsert landing late is harmless) and the next one started.
 */
export type RegistrationBackoff = Backoff & { attemptMs: number };
const DEFAULT_BACKOFF: RegistrationBackoff = { firstMs: 250, maxMs: 10_000, attemptMs: 10_000 };

/**
 * Registers every scheduler now, retrying with backoff until Redis takes them all, and again on every
 * ioredis 'ready' (a reconnect, maybe to a Redis that restarted empty: without persistence the schedulers
 * are gone with it). Nothing here throws: the service keeps starting and serving /healthz while Redis is
 * away, and says not ready until the first registration succeeded.
 */
export function ensureSchedulers(o: {
  redis: RedisClient;
  schedulers: readonly (JobScheduler | null | undefined)[];
  logger: Logger;
  backoff?: RegistrationBackoff;
}): SchedulerKeeper {
  const schedulers = o.schedulers.filter((s): s is JobScheduler => !!s);
  const backoff = o.backoff ?? DEFAULT_BACKOFF;
  let registered = false;
  let markRegistered: () => void = () => undefined;
  const firstRegistration = new Promise<void>((resolve) => (markRegistered = resolve));
  let stopped = false;
  let running: Promise<void> | null = null;
  // A 'ready' while an attempt is in flight: that attempt may have written to the Redis that just went away.
  let again = false;
  let wake: (() => void) | null = null;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wake = null));

  const attempt = async (): Promise<void> => {
    for (let tries = 1; !stopped; tries++) {
      again = false;
      try {
        await withDeadline(
          Promise.all(schedulers.map((s) => s.upsert())),
          backoff.attemptMs,
          `no answer within ${backoff.attemptMs} ms`,
        );
        o.logger.info('job schedulers registered', { ids: schedulers.map((s) => s.id), tries });
        registered = true;
        markRegistered();
        if (!again) return;
      } catch (err) {
        if (stopped) return;
        const delay = backoffMs(backoff, tries - 1);
        o.logger.warn('job schedulers not registered (Redis); retrying', {
          err: err instanceof Error ? err.message : String(err),
          retryInMs: delay,
          tries,
        });
        await pause(delay);
      }
    }
  };

  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = attempt().finally(() => (running = null));
  };

  o.redis.on('ready', run);
  run();
  return {
    registered: () => registered,
    firstRegistration,
    stop: () => {
      stopped = true;
      o.redis.off('ready', run);
      wake?.();
    },
  };
}
