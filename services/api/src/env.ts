import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime';

const schema = z.object({
  NODE_ENV: envFields.nodeEnv,
  LOG_LEVEL: envFields.logLevel,
  API_PORT: envFields.port(3000),
  API_HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: envFields.databaseUrl,
  DB_POOL_MAX: z.coerce.number().int().min(2).max(200).default(20),
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  /** How often the outbox sweeper re-enqueues links whose sync request may have been lost, and collects expired uploads. */
  SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(30_000),
});

export type ApiEnv = z.infer<typeof schema>;
export const env: ApiEnv = parseEnv(schema);
