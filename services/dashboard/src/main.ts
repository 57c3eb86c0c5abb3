import { createDb } from '@rolelink/db';
import { producerConnection } from '@rolelink/queue';
import { createLogger, createMetrics, onShutdown } from '@rolelink/runtime';
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

const server = app.listen(env.DASHBOARD_PORT, env.DASHBOARD_HOST, () => logger.info('dashboard listening', { port: env.DASHBOARD_PORT }));
server.on('error', (err: NodeJS.ErrnoException) => {
  logger.error(err.code === 'EADDRINUSE' ? `port ${env.DASHBOARD_PORT} is already in use (set DASHBOARD_PORT)` : err.message);
  process.exit(1);
});
server.headersTimeout = 60_000;
server.keepAliveTimeout = 65_000;

onShutdown(logger, [
  {
    name: 'stop accepting',
    run: () => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return closed;
    },
  },
  { name: 'redis', run: () => redis.quit() },
  { name: 'database', run: () => db.close() },
]);
