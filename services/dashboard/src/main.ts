import { createDb } from '@rolelink/db';
import { producerConnection } from '@rolelink/queue';
import { createLogger, createMetrics, onShutdown, serve } from '@rolelink/runtime';
import { createApp } from './app';
import { env } from './env';

const logger = createLogger('dashboard', env.LOG_LEVEL);
// The placeholder only probes its dependencies; the dashboard proper reads links through them.
const db = createDb(env.DATABASE_URL, { max: 5 });
const redis = producerConnection(env.REDIS_URL);
let draining = false;

const app = createApp({
  logger,
  metrics: createMetrics('dashboard'),
  readiness: { db: () => db.pool.query('SELECT 1'), redis: () => redis.ping() },
  draining: () => draining,
});

const server = serve(app, { name: 'dashboard', port: env.DASHBOARD_PORT, host: env.DASHBOARD_HOST, portVar: 'DASHBOARD_PORT', logger });

onShutdown(logger, [
  { name: 'stop accepting', run: () => { draining = true; return server.stop(); } },
  { name: 'redis', run: () => redis.quit() },
  { name: 'database', run: () => db.close() },
]);
