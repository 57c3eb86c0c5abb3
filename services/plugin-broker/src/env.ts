import { z } from 'zod';
import { decodeKey, envFields, parseEnv } from '@rolelink/runtime';

const schema = z.object({
  NODE_ENV: envFields.nodeEnv,
  LOG_LEVEL: envFields.logLevel,
  DATABASE_URL: envFields.databaseUrl,
  DB_POOL_MAX: z.coerce.number().int().min(2).max(100).default(10),
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  ROLELINK_SECRET_KEY: envFields.secretKey.transform((v) => decodeKey(v) as Buffer),
  /** Hosts or IPs that may be plugin hosts although private (tests, local runs); a warning is logged at start. */
  ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
  /** /healthz, /readyz and /metrics. */
  BROKER_PORT: envFields.port(3002),
  BROKER_HOST: z.string().default('0.0.0.0'),
  /** Plugin calls in flight per broker process (they are I/O bound). */
  BROKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(32),
  HEALTH_POLL_EVERY_MS: z.coerce.number().int().min(1000).default(60_000),
});

export type BrokerEnv = z.infer<typeof schema>;
export const env: BrokerEnv = parseEnv(schema);
