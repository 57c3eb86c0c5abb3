import { z } from 'zod';

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
  [QueueName.pluginCalls]: {
    register: z.object({ linkId: z.string().regex(/^\d+$/) }),
    'delete-config': z.object({ pluginUrl: z.string(), guildId: z.string(), roleId: z.string(), tokenCiphertext: z.string() }),
    'fetch-config': z.object({ linkId: z.string().regex(/^\d+$/), refresh: z.boolean().default(false) }),
    'submit-config': z.object({ linkId: z.string().regex(/^\d+$/), config: z.record(z.string(), z.unknown()) }),
    'health-poll': z.object({}),
  },
  [QueueName.maintenance]: {
    sweep: z.object({}),
  },
} as const;

export type JobCatalog = typeof jobCatalog;
export type JobName<Q extends QueueName> = keyof JobCatalog[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobCatalog[Q][N] extends z.ZodType ? z.infer<JobCatalog[Q][N]> : never;
