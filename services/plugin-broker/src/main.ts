import { createDb, pingDatabase } from '@rolelink/db/client';
import { closeRedis, producerConnection, workerConnection } from '@rolelink/queue';
import {
  createLogger,
  createMetrics,
  DependencyLog,
  drainMs,
  onShutdown,
  runMain,
  secretKeyring,
  serve,
} from '@rolelink/runtime';
import { ConfigCache } from './config-cache';
import { DEFAULT_EVENT_DELIVERY, DEFAULT_PLUGIN_TIMEOUTS, type BrokerContext } from './context';
import { loadEnv } from './env';
import { PluginHttp } from '@rolelink/plugin-http';
import { createBrokerServer } from './server';
import { checkSoon } from './plugin-calls-handlers';
import { createBrokerWorker } from './worker';

function main(): void {
  const env = loadEnv();

  const logger = createLogger('plugin-broker', env.LOG_LEVEL);
  if (env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS.length > 0) {
    logger.warn(
      'ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS is set: plugin calls may reach these private hosts (tests and local runs only)',
      {
        hosts: env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
      },
    );
  }

  const db = createDb(env.DATABASE_URL, { max: env.DB_POOL_MAX, sessionUrl: env.DATABASE_SESSION_URL, sessionMax: 2 });
  const redis = workerConnection(env.REDIS_URL);
  // The schema cache is best effort: its reads must fail fast when Redis is away, not wait like the worker's.
  const cacheRedis = producerConnection(env.REDIS_URL);
  const metrics = createMetrics('plugin-broker');
  // One line per change of PostgreSQL's or Redis's state, whoever notices it.
  const dependencies = new DependencyLog(logger);
  dependencies.watch('redis', redis);
  // Production trusts the system CA store plus NODE_EXTRA_CA_CERTS (read by Node itself at start).
  const http = new PluginHttp({ allowHosts: env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS });
  const ctx: BrokerContext = {
    db: db.pool,
    sessionDb: db.session,
    http,
    cache: new ConfigCache(cacheRedis, env.QUEUE_PREFIX),
    secretKey: secretKeyring(env),
    allowHosts: env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
    timeouts: DEFAULT_PLUGIN_TIMEOUTS,
    events: {
      ...DEFAULT_EVENT_DELIVERY,
      baseMs: env.EVENT_RETRY_BASE_MS,
      maxMs: env.EVENT_RETRY_MAX_MS,
      windowMs: env.EVENT_RETRY_WINDOW_MS,
      sweepEveryMs: env.EVENT_SWEEP_EVERY_MS,
      retentionDays: env.EVENT_RETENTION_DAYS,
    },
    logger,
    metrics,
    now: Date.now,
  };
  const broker = createBrokerWorker(ctx, {
    connection: redis,
    prefix: env.QUEUE_PREFIX,
    concurrency: env.BROKER_CONCURRENCY,
    healthPollEveryMs: env.HEALTH_POLL_EVERY_MS,
    eventSweepEveryMs: env.EVENT_SWEEP_EVERY_MS,
    eventRetentionEveryMs: env.RETENTION_SWEEP_EVERY_MS,
    dependencies,
  });
  metrics.queueDepth(async () => {
    const counts = await broker.jobs.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    return Object.entries(counts).map(([state, count]) => ({ queue: broker.jobs.name, state, count }));
  });

  // Watched, not part of readiness: an outage of a shared dependency is no reason to replace every broker.
  metrics.dependencies({ db: () => pingDatabase(db.pool), redis: () => redis.ping() }, dependencies);
  const app = createBrokerServer({
    logger,
    metrics,
    // Ready = this process takes jobs: its BullMQ worker runs (it waits through a Redis outage by itself).
    readiness: { worker: () => broker.worker.isRunning() || Promise.reject(new Error('worker not running')) },
    // Read on each /readyz; `server` is assigned below, before the first request can arrive.
    draining: () => server.draining,
    internal: { ctx, token: env.BROKER_INTERNAL_TOKEN, registered: (linkId) => checkSoon(ctx, broker.jobs, linkId) },
  });
  const server = serve(app, {
    name: 'plugin broker',
    port: env.BROKER_PORT,
    host: env.BROKER_HOST,
    portVar: 'BROKER_PORT',
    logger,
    drainMs: drainMs(env),
  });

  broker.ready().then(
    () =>
      logger.info('plugin broker taking jobs and internal calls', {
        concurrency: env.BROKER_CONCURRENCY,
        healthPollEveryMs: env.HEALTH_POLL_EVERY_MS,
      }),
    (err: unknown) =>
      logger.error('plugin broker failed to start', { error: err instanceof Error ? err.message : String(err) }),
  );

  onShutdown(logger, [
    // The worker stops taking jobs and finishes its running calls during the drain window, not after it.
    { name: 'http and worker', run: () => Promise.all([server.drain(), broker.close()]) },
    { name: 'plugin connections', run: () => http.close() },
    { name: 'redis', run: () => Promise.all([closeRedis(redis), closeRedis(cacheRedis)]) },
    { name: 'database', run: () => db.close() },
  ]);
}

runMain('plugin-broker', main);
