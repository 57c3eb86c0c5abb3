import { createDb, holdPresence, pingDatabase } from '@rolelink/db/client';
import { readSyncLag } from '@rolelink/db/sync';
import { closeRedis, producerConnection, SyncNotifier, workerConnection } from '@rolelink/queue';
import { createLogger, createMetrics, DependencyLog, drainMs, onShutdown, runMain, serve } from '@rolelink/runtime';
import { createApi } from './app';
import { loadEnv } from './env';
import { ExpirySweeper } from './expiry-sweeper';
import { startMaintenance } from './maintenance';

function main(): void {
  const env = loadEnv();

  const logger = createLogger('api', env.LOG_LEVEL);
  const db = createDb(env.DATABASE_URL, { max: env.DB_POOL_MAX, sessionUrl: env.DATABASE_SESSION_URL, sessionMax: 2 });
  // Behind a transaction pooler: this process's name stays in pg_stat_activity for its Idempotency-Key claims.
  const presence = holdPresence(db);
  const redis = producerConnection(env.REDIS_URL);
  const sync = new SyncNotifier(redis, env.QUEUE_PREFIX, logger);
  // The rate limiter's own connection: one take per lease of up to 64 requests of a token, and with
  // auto-pipelining the takes of one event-loop turn (many tokens at once) share a write and a read.
  const limiterRedis = producerConnection(env.REDIS_URL, { enableAutoPipelining: true });
  const expiries = new ExpirySweeper({ pool: db.pool, sync, logger });
  const metrics = createMetrics('api');
  // Watched, not part of readiness: during an outage every request gets 503 with Retry-After (docs/operations.md).
  // One line per change of PostgreSQL's or Redis's state.
  const dependencies = new DependencyLog(logger);
  dependencies.watch('redis', redis);
  metrics.dependencies({ db: () => pingDatabase(db.pool), redis: () => redis.ping() }, dependencies);
  // The sweeps' jobs and schedulers (maintenance.ts): BullMQ's blocking reads need a connection of their own.
  const maintenanceRedis = workerConnection(env.REDIS_URL);
  const maintenance = startMaintenance({
    connection: maintenanceRedis,
    prefix: env.QUEUE_PREFIX,
    logger,
    dependencies,
    // The sweeps hold session advisory locks for their runs: on the session pool (PostgreSQL directly).
    pool: db.session,
    sync,
    expiries,
    sweepEveryMs: env.SWEEP_EVERY_MS,
    expirySweepEveryMs: env.EXPIRY_SWEEP_EVERY_MS,
  });
  // The sync lag gauges, read from PostgreSQL as the bot worker reads them: with no bot worker running the
  // outbox still ages where the sync alerts see it (else changes could wait with no sync alert firing).
  // The rules take max() over every process that reports them.
  metrics.syncLag(() => readSyncLag(db.pool));

  const api = createApi({
    pool: db.pool,
    sync,
    logger,
    metrics,
    // Read on each /readyz; `server` is assigned below, before the first request can arrive.
    draining: () => server.draining,
    rateLimit:
      env.API_RATE_LIMIT === 'on'
        ? {
            redis: limiterRedis,
            prefix: env.QUEUE_PREFIX,
            windowMs: env.API_RATE_LIMIT_WINDOW_MS,
            perPlan: { free: env.API_RATE_LIMIT_FREE, premium: env.API_RATE_LIMIT_PREMIUM },
          }
        : undefined,
  });

  // Commits of 30M IDs may take up to 30 minutes (spec 4.1 rule 4); PUT up to 2.
  const server = serve(api.listener, {
    name: 'api',
    port: env.API_PORT,
    host: env.API_HOST,
    portVar: 'API_PORT',
    logger,
    requestTimeoutMs: 31 * 60_000,
    drainMs: drainMs(env),
    serverOptions: api.serverOptions,
  });

  onShutdown(logger, [
    { name: 'http (drain, then stop accepting and finish in-flight requests)', run: () => server.drain() },
    { name: 'maintenance jobs (the sweeps)', run: () => maintenance.close() },
    { name: 'expiry sweeper', run: () => expiries.stop() },
    { name: 'maintenance redis', run: () => closeRedis(maintenanceRedis) },
    { name: 'queue', run: () => sync.close() },
    { name: 'redis', run: () => closeRedis(redis) },
    { name: 'rate-limit redis', run: () => closeRedis(limiterRedis) },
    { name: 'database', run: () => presence.close().then(() => db.close()) },
  ]);
}

runMain('api', main);
