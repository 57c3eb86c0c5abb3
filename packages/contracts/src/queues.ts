import { z } from 'zod';
import type { ConfigView } from './config-schema/view';
import { snowflake } from './snowflake';

/** Queue names, one place, never renamed (renaming strands jobs already in Redis). */
export const QueueName = {
  roleSync: 'role-sync',
  pluginCalls: 'plugin-calls',
  maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

/** Job payloads, keyed by queue then job name: producers and workers are typed from this one catalog. */
export const jobCatalog = {
  [QueueName.roleSync]: {
    sync: z.object({ linkId: z.string().regex(/^\d+$/) }),
    reconcile: z.object({}),
  },
  // Plugin calls (services/plugin-broker). No raw token ever: the broker reads the encrypted token by
  // link id, or (delete-config, whose link row is gone) receives the ciphertext. `deadline` is the epoch
  // ms at which the caller stops waiting: the broker never starts a call it could not finish by then.
  [QueueName.pluginCalls]: {
    register: z.object({ linkId: z.string().regex(/^\d+$/), deadline: z.number().int().positive() }),
    'delete-config': z.object({ pluginUrl: z.string(), guildId: z.string(), roleId: z.string(), tokenCiphertext: z.string().base64() }),
    'fetch-config': z.object({
      linkId: z.string().regex(/^\d+$/),
      refresh: z.boolean().default(false),
      viewerId: snowflake.optional(),
      deadline: z.number().int().positive(),
    }),
    'submit-config': z.object({ linkId: z.string().regex(/^\d+$/), config: z.record(z.string(), z.unknown()), deadline: z.number().int().positive() }),
    'health-poll': z.object({}),
    'health-check': z.object({ pluginUrl: z.string() }),
  },
  [QueueName.maintenance]: {
    sweep: z.object({}),
  },
} as const;

export type JobCatalog = typeof jobCatalog;
export type JobName<Q extends QueueName> = keyof JobCatalog[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobCatalog[Q][N] extends z.ZodType ? z.infer<JobCatalog[Q][N]> : never;

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
