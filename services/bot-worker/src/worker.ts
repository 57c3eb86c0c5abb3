import type { Worker } from 'bullmq';
import { QueueName } from '@rolelink/contracts';
import { readDriftCoverage, readSyncLag } from '@rolelink/db/sync';
import { sharedRepairDeps } from './repair-deps';
import type { BotWorkerOptions } from './worker-options';
import { readRefusals } from './sync/refusal-figures';
import { Consumer, ensureSchedulers, Producer, scheduled } from '@rolelink/queue';
import { DependencyLog, type Logger, type Metrics } from '@rolelink/runtime';
import { followUps } from './jobs/follow-up';
import { timeJobs } from './jobs/job-timing';
import { ignoreUnknownJob, roleSyncHandlers } from './jobs/role-sync-handlers';
import { DmChannels } from './notify/dm-channels';
import { notifyHandlers } from './notify/notify-handlers';
import { driftHandlers, driftTickMs } from './drift/drift-handlers';
import { BudgetShare } from './budget-share';

/** The notifications' rate limit: one message per guild per event kind per 10 minutes; a burst folds into it. */
export const DEFAULT_NOTIFY_WINDOW_MS = 10 * 60_000;
/** NOTIFICATION_RETENTION_DAYS's default: delivered notifications are listed for 90 days. */
export const DEFAULT_NOTIFICATION_RETENTION_DAYS = 90;

export type BotWorker = {
  worker: Worker;
  producer: Producer<typeof QueueName.roleSync>;
  notifyProducer: Producer<typeof QueueName.notify>;
  /** True once every job scheduler is registered in Redis (readiness; jobs/schedulers.ts keeps them). */
  schedulersRegistered(): boolean;
  /** Stops taking jobs and waits for the active slices; safe to call twice. */
  close(): Promise<void>;
};

/**
 * The bot worker: drains `role-sync` (`sync` slices per link, `reconcile`) through the catalog's typed
 * consumer. Each step is its own file under jobs/: the handlers, what a job enqueues after it, its timing.
 */
export function createBotWorker(o: BotWorkerOptions): BotWorker {
  const producer = new Producer(QueueName.roleSync, o.redis, o.prefix);
  reportQueueDepth(o.metrics, producer);
  // Every replica reports the same figures (they are the database's): dashboards and alerts take max().
  o.metrics?.syncLag(() => readSyncLag(o.db));
  o.metrics?.refusals(() => readRefusals(o.db, o.appKey));
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
  const notifyProducer = new Producer(QueueName.notify, o.redis, o.prefix);
  // Every notification request waits for the notifications' share of the global budget, so a burst of them
  // (a plugin host down for thousands of guilds) never starves the syncs and the drift poll.
  const notifyBudget = o.notifyBudget && new BudgetShare(o.redis, `${o.prefix}:notify:budget`, o.notifyBudget);
  const spend = notifyBudget ? () => notifyBudget.acquire() : () => Promise.resolve();
  const dms = new DmChannels({ api: o.api, redis: o.redis, prefix: o.prefix, appKey: o.appKey, spend });
  const notifyOptions = {
    db: o.db,
    retentionDays: o.notificationRetentionDays ?? DEFAULT_NOTIFICATION_RETENTION_DAYS,
    // The retention sweep holds a session advisory lock for its run: PostgreSQL directly, not a pooler.
    sessionDb: o.sessionDb ?? o.db,
    api: o.api,
    logger: o.logger,
    windowMs: o.notifyWindowMs ?? DEFAULT_NOTIFY_WINDOW_MS,
    dms,
    spend,
  };
  // Its own queue and a small concurrency: notifications never take a slot from role syncs.
  const notify = new Consumer(QueueName.notify, notifyHandlers(notifyOptions, notifyProducer), {
    connection: o.workerRedis,
    prefix: o.prefix,
    concurrency: 2,
  });
  notify.worker.on('error', redisErrors(o)('notify worker error'));
  notify.worker.on('failed', (job, err) =>
    o.logger.warn('notify job failed', { jobId: job?.id, name: job?.name, err: err.message }),
  );
  const drift = o.drift?.everyMs ? startDriftPoll(o, o.drift, producer) : undefined;
  worker.on('error', redisErrors(o)('worker error'));
  worker.on('failed', (job, err) => {
    const requestId = (job?.data as { requestId?: string } | undefined)?.requestId;
    o.logger.warn('job failed', {
      jobId: job?.id,
      name: job?.name,
      ...(requestId !== undefined && { requestId }),
      err: err.message,
    });
  });

  // Every repeating job, one line each; registered without blocking start-up and again after each Redis
  // reconnect (a Redis without persistence comes back without them). Absent interval: left alone (tests drive it).
  const schedulers = [
    scheduled(producer, 'reconcile', o.reconcileEveryMs),
    scheduled(notifyProducer, 'notify-sweep', o.notifySweepEveryMs),
    scheduled(notifyProducer, 'notification-retention', o.retentionEveryMs),
    scheduled(producer, 'link-purge', o.purgeEveryMs),
    drift && scheduled(drift.producer, 'drift-poll', drift.tickMs),
  ];
  const keeper = ensureSchedulers({ redis: o.redis, schedulers, logger: o.logger });

  let closing: Promise<void> | null = null;
  return {
    worker,
    producer,
    notifyProducer,
    schedulersRegistered: () => keeper.registered(),
    close: () =>
      (closing ??= (async () => {
        keeper.stop();
        await Promise.all([consumer.close(), notify.close(), drift?.consumer.close()]);
        await Promise.all([producer.close(), notifyProducer.close(), drift?.producer.close()]);
      })()),
  };
}

/**
 * The drift poll on a queue of its own, so a sync backlog never delays it, scheduled every tick. Two at
 * once: a tick's lock covers its grants, not its reads' round trips, so the next tick starts granting
 * while the last reads of the one before are still out (one worker alone included). The bot's user id is
 * asked once per process.
 */
function startDriftPoll(
  o: BotWorkerOptions,
  d: NonNullable<BotWorkerOptions['drift']>,
  syncs: Producer<typeof QueueName.roleSync>,
) {
  const producer = new Producer(QueueName.drift, o.redis, o.prefix);
  // Like the sync lag, the database's figures: every replica reports the same, alerts take max().
  o.metrics?.driftCoverage(() => readDriftCoverage(o.db));
  let botUserId: Promise<string> | undefined;
  const tickMs = driftTickMs(d.everyMs);
  const budget = new BudgetShare(o.redis, `${o.prefix}:drift:budget`, {
    floorPerSecond: d.floorPerSecond,
    maxPerSecond: d.maxPerSecond,
    globalLoad: d.globalLoad,
  });
  const handlers = driftHandlers({
    ...sharedRepairDeps(o),
    budget,
    everyMs: d.everyMs,
    tickMs,
    botUserId: () =>
      (botUserId ??= o.api.users.getCurrent().then((u) => u.id)).catch((err: unknown) => {
        botUserId = undefined; // asked again by the next tick
        throw err;
      }),
    enqueueSync: (linkId) => syncs.add('sync', { linkId }, { dedup: 'wanted' }),
  });
  const consumer = new Consumer(QueueName.drift, handlers, {
    connection: o.workerRedis,
    prefix: o.prefix,
    concurrency: 2,
  });
  consumer.worker.on('error', redisErrors(o)('drift worker error'));
  consumer.worker.on('failed', (job, err) => o.logger.warn('drift poll failed', { jobId: job?.id, err: err.message }));
  return { consumer, producer, tickMs };
}

const ownLogs = new WeakMap<Logger, DependencyLog>();
/** The 'error' listener of this worker's BullMQ workers (DependencyLog.listener for Redis). */
function redisErrors(o: Pick<BotWorkerOptions, 'dependencies' | 'logger'>): (what: string) => (err: Error) => void {
  let log = o.dependencies ?? ownLogs.get(o.logger);
  if (!log) ownLogs.set(o.logger, (log = new DependencyLog(o.logger)));
  return (what) => log.listener('redis', what);
}

/** rolelink_queue_jobs{queue="role-sync",state}, sampled at each scrape. */
function reportQueueDepth(metrics: Metrics | undefined, producer: Producer<typeof QueueName.roleSync>): void {
  metrics?.queueDepth(async () => {
    const counts = await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    return Object.entries(counts).map(([state, count]) => ({ queue: QueueName.roleSync, state, count }));
  });
}
