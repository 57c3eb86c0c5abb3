import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime';

const schema = z.object({
  NODE_ENV: envFields.nodeEnv,
  LOG_LEVEL: envFields.logLevel,
  DASHBOARD_PORT: envFields.port(3001),
  DASHBOARD_HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: envFields.databaseUrl,
  REDIS_URL: envFields.redisUrl,
});

export type DashboardEnv = z.infer<typeof schema>;
export const env: DashboardEnv = parseEnv(schema);
