import { z } from 'zod';
import type { ConfigView } from './config-schema/view';
import { snowflake } from './snowflake';

/** Queue names, one place, never renamed (renaming strands jobs already in Redis). */
export const QueueName = {
  roleSync: 'role-sync',
  pluginCalls: 'plugin-calls',
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
  },
  // Plugin calls (services/plugin-broker). No raw token ever: the broker reads the encrypted token by
  // link id, or (delete-config, whose link row is gone) receives the ciphertext. `deadline` is the epoch
  // ms at which the caller stops waiting: the broker never starts a call it could not finish by then.
  [QueueName.pluginCalls]: {
    register: z.object({ linkId, deadline: z.number().int().positive() }),
    'delete-config': z.object({ pluginUrl: z.string(), guildId: z.string(), roleId: z.string(), tokenCiphertext: z.string().base64() }),
    'fetch-config': z.object({
      linkId,
      refresh: z.boolean().default(false),
      viewerId: snowflake.optional(),
      deadline: z.number().int().positive(),
    }),
    'submit-config': z.object({ linkId, config: z.record(z.string(), z.unknown()), deadline: z.number().int().positive() }),
    'health-poll': z.object({}),
    'health-check': z.object({ pluginUrl: z.string() }),
  },
} as const;

export type JobCatalog = typeof jobCatalog;
export type JobName<Q extends QueueName> = keyof JobCatalog[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobCatalog[Q][N] extends z.ZodType ? z.infer<JobCatalog[Q][N]> : never;

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
} as const satisfies { [Q in QueueName]?: { [N in JobName<Q>]?: Record<string, DedupRule<Q, N>> } };

export type JobDedup = typeof jobDedup;
/** The dedup reasons of one job (never for a job without rules). */
export type DedupReason<Q extends QueueName, N extends JobName<Q>> = Q extends keyof JobDedup ? (N extends keyof JobDedup[Q] ? keyof JobDedup[Q][N] & string : never) : never;

/** Admin-facing messages of plugin failures (spec 7), shared by the broker and its callers. */
export const PluginCallMessage = {
  register: 'Failed to register with plugin server',
  fetchUnreachable: 'Failed to fetch plugin schema: plugin server unreachable',
  invalidSchema: 'Plugin returned invalid schema',
  submit: 'Failed to submit config to plugin server',
} as const;

/** An expected failure of a plugin call, carried in the job result and rethrown by the caller as AppError. */
export type PluginCallError = { status: number; message: string; code: string; body?: Record<string, unknown> };
export type PluginCallResult<T> = { ok: true; value: T } | { ok: false; error: PluginCallError };

/** Return values of the plugin-calls jobs whose callers wait for them. */
export type PluginCallValues = {
  register: null;
  'fetch-config': ConfigView;
  'submit-config': { status: number; body: unknown };
};
