import { z } from 'zod';
import { snowflake } from './snowflake';

/** Queue names, one place, never renamed (renaming strands jobs already in Redis). */
export const QueueName = {
  roleSync: 'role-sync',
  pluginCalls: 'plugin-calls',
  notify: 'notify',
  drift: 'drift',
  maintenance: 'maintenance',
  dashboardMaintenance: 'dashboard-maintenance',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

/** A role link's id in a job: the decimal string of its bigint primary key. */
const linkId = z.string().regex(/^\d+$/);
/** The X-Request-Id of the API request that asked for a job (runtime's requestId() accepts the same form). */
export const REQUEST_ID_PATTERN = /^[\w.:-]{1,100}$/;

/** Job payloads, keyed by queue then job name: producers and workers are typed from this one catalog. */
export const jobCatalog = {
  [QueueName.roleSync]: {
    // requestId: the write that queued this job, carried into the worker's log lines for it. Jobs are
    // deduplicated per link, so later writes of a burst ride the job of the first (their ids are in the
    // API's request lines, with the same linkId). Absent for the outbox sweeper, the reconcile and the CLI.
    sync: z.object({ linkId, requestId: z.string().regex(REQUEST_ID_PATTERN).optional() }),
    reconcile: z.object({}),
    // Scheduled: deletes the rows of deleted links once their roles are stripped (the worker's strip).
    'link-purge': z.object({}),
  },
  // Plugin work nobody waits for (services/plugin-broker); calls a caller waits for are the broker's
  // internal HTTP routes (broker.ts). No raw token ever: delete-config, whose link row is gone, carries
  // the ciphertext.
  [QueueName.pluginCalls]: {
    // afterEvent: the link's `link.deleted` event; DELETE /config waits until it was delivered or dropped.
    'delete-config': z.object({
      pluginUrl: z.string(),
      guildId: z.string(),
      roleId: z.string(),
      tokenCiphertext: z.string().base64(),
      afterEvent: z.string().regex(/^\d+$/).optional(),
    }),
    'health-poll': z.object({}),
    'health-check': z.object({ pluginUrl: z.string() }),
    // Signed events to plugins (docs/api.md "Events to plugins"): the plugin_event rows are the outbox;
    // `event-deliver` sends one link's pending events in order, `event-sweep` (scheduled) finds links
    // with events due (retries, or a recording whose enqueue was lost) and asks for their delivery.
    // retry: `<event id>.<attempts>` of the failed attempt a delayed job retries (its dedup key).
    'event-deliver': z.object({
      linkId,
      retry: z
        .string()
        .regex(/^\d+\.\d+$/)
        .optional(),
    }),
    'event-sweep': z.object({}),
    // Scheduled: deletes finished events past EVENT_RETENTION_DAYS.
    'event-retention': z.object({}),
  },
  // Notifications (services/bot-worker): the rows are the outbox; `sweep` (scheduled) finds guilds with
  // pending rows and asks for a `deliver` per guild, which sends at most one message per event kind;
  // `retention` (scheduled) deletes delivered rows past NOTIFICATION_RETENTION_DAYS.
  [QueueName.notify]: {
    sweep: z.object({}),
    deliver: z.object({ guildId: snowflake }),
    retention: z.object({}),
  },
  // Drift repair (services/bot-worker drift/): `poll` (scheduled) reads the audit log of the guilds that
  // are due, within the poll's share of the platform budget. Its own queue: never behind a sync backlog.
  [QueueName.drift]: {
    poll: z.object({}),
  },
  // The API's own periodic work (services/api/src/maintenance.ts), one job per sweep of the API's tables:
  // `outbox-sweep` re-enqueues links whose sync request was lost, `upload-sweep` collects closed or expired
  // upload staging, `idempotency-sweep` expired idempotency keys, `expiry-sweep` removes memberships whose
  // time has come. Scheduled only (schedulerCatalog below).
  [QueueName.maintenance]: {
    'outbox-sweep': z.object({}),
    'upload-sweep': z.object({}),
    'idempotency-sweep': z.object({}),
    'expiry-sweep': z.object({}),
  },
  // The dashboard's periodic work (services/dashboard/src/maintenance.ts): `audit-retention` deletes admin
  // audit entries past AUDIT_RETENTION_DAYS. Scheduled only.
  [QueueName.dashboardMaintenance]: {
    'audit-retention': z.object({}),
  },
} as const;

export type JobCatalog = typeof jobCatalog;
export type JobName<Q extends QueueName> = keyof JobCatalog[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobCatalog[Q][N] extends z.ZodType
  ? z.infer<JobCatalog[Q][N]>
  : never;

/** BullMQ's `deduplication` option: one job per id while it waits (ttl: also for that long). */
export type Dedup = { id: string; ttl?: number; keepLastIfActive?: boolean };
type DedupRule<Q extends QueueName, N extends JobName<Q>> = (data: JobData<Q, N>, delayMs: number) => Dedup;

/**
 * How each deduplicated job is deduplicated, declared here beside its payload so that no producer picks
 * ids or modes of its own. A job with several rules is enqueued for several reasons; the producer names
 * the reason (`producer.add(name, data, { dedup: 'retry' })`).
 */
export const jobDedup = {
  [QueueName.roleSync]: {
    sync: {
      /**
       * A write (or a slice that did not finish its pass) wants a pass: at most one running and one
       * waiting job per link, so a burst of writes costs one extra pass, never thousands of jobs.
       */
      wanted: ({ linkId }) => ({ id: `link-${linkId}`, keepLastIfActive: true }),
      /**
       * A pass that ended with users in back-off asks for its retry later: an id of its own (a write's
       * `wanted` job does not replace it), held for the delay, so passes never stack retries.
       */
      retry: ({ linkId }, delayMs) => ({ id: `retry-link-${linkId}`, ttl: Math.max(1_000, delayMs) }),
    },
    reconcile: {
      /** The next page of a reconcile that ran out of budget: one, whichever replica asks. */
      continue: (_data, delayMs) => ({ id: 'reconcile-continue', ttl: Math.max(1_000, delayMs) }),
      /** The local stack's reconcile at start (scripts/stack.ts): one a minute, however often it restarts. */
      stackStart: () => ({ id: 'stack-start-reconcile', ttl: 60_000 }),
    },
  },
  [QueueName.pluginCalls]: {
    'health-check': {
      /** One waiting check per plugin URL (at most 500 characters), however many polls or registers ask. */
      perUrl: ({ pluginUrl }) => ({ id: `health:${pluginUrl}` }),
    },
    'event-deliver': {
      /** Events were recorded or fell due: one waiting delivery per link (one more may wait while one runs). */
      due: ({ linkId }) => ({ id: `events-${linkId}`, keepLastIfActive: true }),
      /**
       * A failed attempt's retry, delayed by the backoff: one per failed attempt (the retry job itself
       * asks for the next one, so the id names the attempt), held for the delay.
       */
      retry: ({ linkId, retry }, delayMs) => ({
        id: `events-retry-${linkId}-${retry ?? ''}`,
        ttl: Math.max(1_000, delayMs),
      }),
    },
  },
  [QueueName.notify]: {
    deliver: {
      /** One waiting delivery per guild: a sweep that finds the guild again while one waits adds nothing. */
      due: ({ guildId }) => ({ id: `notify-${guildId}`, keepLastIfActive: true }),
    },
  },
} as const satisfies { [Q in QueueName]?: { [N in JobName<Q>]?: Record<string, DedupRule<Q, N>> } };

export type JobDedup = typeof jobDedup;
/** The dedup reasons of one job (never for a job without rules). */
export type DedupReason<Q extends QueueName, N extends JobName<Q>> = Q extends keyof JobDedup
  ? N extends keyof JobDedup[Q]
    ? keyof JobDedup[Q][N] & string
    : never
  : never;

/** The deployables that run periodic work: each scheduler is upserted and consumed by its owner only. */
export type SchedulerOwner = 'api' | 'bot-worker' | 'plugin-broker' | 'dashboard';

/**
 * Every periodic job, one place: a BullMQ job scheduler per id, upserted by every replica of
 * the service that consumes its queue (packages/queue `scheduled` and `ensureSchedulers`), so however many
 * replicas run, each job runs once per interval, and its jobs show in `rolelink_queue_jobs`. `everyEnv` is
 * the variable of the owning service that sets the interval. Ids are never renamed: a renamed scheduler
 * would leave the old one repeating in Redis.
 */
export const schedulerCatalog = {
  reconcile: { queue: QueueName.roleSync, job: 'reconcile', owner: 'bot-worker', everyEnv: 'RECONCILE_EVERY_MS' },
  'notify-sweep': { queue: QueueName.notify, job: 'sweep', owner: 'bot-worker', everyEnv: 'NOTIFY_SWEEP_MS' },
  // Its tick is derived from the per-guild period (driftTickMs), not the period itself.
  'drift-poll': { queue: QueueName.drift, job: 'poll', owner: 'bot-worker', everyEnv: 'DRIFT_POLL_EVERY_MS' },
  'plugin-health': {
    queue: QueueName.pluginCalls,
    job: 'health-poll',
    owner: 'plugin-broker',
    everyEnv: 'HEALTH_POLL_EVERY_MS',
  },
  'plugin-events-sweep': {
    queue: QueueName.pluginCalls,
    job: 'event-sweep',
    owner: 'plugin-broker',
    everyEnv: 'EVENT_SWEEP_EVERY_MS',
  },
  // The link purge: the worker strips the roles of a deleted link first, then its rows go.
  'link-purge': { queue: QueueName.roleSync, job: 'link-purge', owner: 'bot-worker', everyEnv: 'PURGE_EVERY_MS' },
  'notification-retention': {
    queue: QueueName.notify,
    job: 'retention',
    owner: 'bot-worker',
    everyEnv: 'RETENTION_SWEEP_EVERY_MS',
  },
  'plugin-events-retention': {
    queue: QueueName.pluginCalls,
    job: 'event-retention',
    owner: 'plugin-broker',
    everyEnv: 'RETENTION_SWEEP_EVERY_MS',
  },
  'outbox-sweep': { queue: QueueName.maintenance, job: 'outbox-sweep', owner: 'api', everyEnv: 'SWEEP_EVERY_MS' },
  'upload-sweep': { queue: QueueName.maintenance, job: 'upload-sweep', owner: 'api', everyEnv: 'SWEEP_EVERY_MS' },
  'idempotency-sweep': {
    queue: QueueName.maintenance,
    job: 'idempotency-sweep',
    owner: 'api',
    everyEnv: 'SWEEP_EVERY_MS',
  },
  'expiry-sweep': {
    queue: QueueName.maintenance,
    job: 'expiry-sweep',
    owner: 'api',
    everyEnv: 'EXPIRY_SWEEP_EVERY_MS',
  },
  'audit-retention': {
    queue: QueueName.dashboardMaintenance,
    job: 'audit-retention',
    owner: 'dashboard',
    everyEnv: 'RETENTION_SWEEP_EVERY_MS',
  },
} as const satisfies Record<
  string,
  { [Q in QueueName]: { queue: Q; job: JobName<Q>; owner: SchedulerOwner; everyEnv: string } }[QueueName]
>;

export type SchedulerId = keyof typeof schedulerCatalog;
/** The ids of the schedulers on queue `Q`. */
export type SchedulerOf<Q extends QueueName> = {
  [I in SchedulerId]: (typeof schedulerCatalog)[I]['queue'] extends Q ? I : never;
}[SchedulerId];
