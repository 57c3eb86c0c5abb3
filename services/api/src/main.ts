import { createDb } from '@rolelink/db';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { createLogger, createMetrics, onShutdown } from '@rolelink/runtime';
import { createApp } from './app';
import { env } from './env';
import { OutboxSweeper } from './outbox-sweeper';

const logger = createLogger('api', env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL, { max: env.DB_POOL_MAX });
const redis = producerConnection(env.REDIS_URL);
const sync = new SyncNotifier(redis, env.QUEUE_PREFIX, logger);
const sweeper = new OutboxSweeper(db.pool, sync, logger, env.SWEEP_EVERY_MS);
let draining = false;

const app = createApp({
  pool: db.pool,
  sync,
  logger,
  metrics: createMetrics('api'),
  readiness: { db: () => db.pool.query('SELECT 1'), redis: () => redis.ping() },
  draining: () => draining,
});

const server = app.listen(env.API_PORT, env.API_HOST, () => logger.info('api listening', { port: env.API_PORT }));
server.on('error', (err: NodeJS.ErrnoException) => {
  logger.error(err.code === 'EADDRINUSE' ? `port ${env.API_PORT} is already in use (set API_PORT)` : err.message);
  process.exit(1);
});
// Commits of 30M IDs may take up to 30 minutes (spec 4.1 rule 4); PUT up to 2.
server.requestTimeout = 31 * 60_000;
server.headersTimeout = 60_000;
server.keepAliveTimeout = 65_000;
sweeper.start();

onShutdown(logger, [
  { name: 'stop accepting', run: () => { draining = true; const closed = new Promise<void>((r) => server.close(() => r())); server.closeIdleConnections(); return closed; } },
  { name: 'sweeper', run: () => sweeper.stop() },
  { name: 'queue', run: () => sync.close() },
  { name: 'redis', run: () => redis.quit() },
  { name: 'database', run: () => db.close() },
]);
