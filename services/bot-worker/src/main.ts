import { createDb, pingDatabase } from '@rolelink/db/client';
import { applicationKey, createPlatformClient, shapeErrorReporter } from '@rolelink/platform-client';
import { closeRedis, workerConnection } from '@rolelink/queue';
import { createLogger, createMetrics, DependencyLog, drainMs, onShutdown, runMain, serve } from '@rolelink/runtime';
import { loadEnv } from './env';
import { createHttpApp } from './http';
import { noteRateLimited } from './sync/slice-log';
import { createBotWorker } from './worker';

function main(): void {
  const env = loadEnv();
  const logger = createLogger('bot-worker', env.LOG_LEVEL);
  const metrics = createMetrics('bot-worker');
  // A sync slice holds its link's session advisory lock: each runs on a session connection (sessionMax).
  const db = createDb(env.DATABASE_URL, {
    max: env.WORKER_CONCURRENCY + 4,
    sessionUrl: env.DATABASE_SESSION_URL,
    sessionMax: env.WORKER_CONCURRENCY,
  });
  const workerRedis = workerConnection(env.REDIS_URL);
  const redis = workerConnection(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  // One line per change of PostgreSQL's or Redis's state, whoever notices it.
  const dependencies = new DependencyLog(logger);
  dependencies.watch('redis', redis);

  const rateLimited = metrics.platformRateLimited();
  const invalid = metrics.platformInvalidRequests();
  const edgeBans = metrics.platformEdgeBans();
  const { api, limiter } = createPlatformClient({
    apiUrl: env.PLATFORM_API_URL,
    token: env.PLATFORM_BOT_TOKEN,
    redis,
    keyPrefix: env.QUEUE_PREFIX,
    limiter: { globalPerSecond: env.PLATFORM_GLOBAL_PER_SECOND },
    events: {
      rateLimited: (i) => {
        rateLimited.inc({ scope: i.scope });
        noteRateLimited(i.retryAfterMs);
        logger.warn('platform answered 429', {
          scope: i.scope,
          retryAfterMs: i.retryAfterMs,
          route: i.routeKey,
          major: i.major,
        });
      },
      edgeBan: (i) => {
        if (!i.began) return;
        edgeBans.inc();
        logger.error('platform edge ban: every platform request paused (429 without rate-limit headers)', {
          blockedMs: i.blockedMs,
          retryAfterMs: i.retryAfterMs,
          inARow: i.inARow,
          route: i.routeKey,
          major: i.major,
        });
      },
      limiterUnavailable: (i) => logger.warn('platform rate limiter unavailable (Redis)', i),
      shapeError: shapeErrorReporter(metrics.platformShapeErrors(), logger),
      invalidRequest: (i) => {
        invalid.inc({ status: String(i.status) });
        if (i.blockMs > 0)
          logger.error('platform requests paused: invalid-request budget or auth back-off', {
            status: i.status,
            count: i.countInWindow,
            blockMs: i.blockMs,
          });
      },
    },
  });

  const bot = createBotWorker({
    db: db.pool,
    sessionDb: db.session,
    api,
    workerRedis,
    redis,
    prefix: env.QUEUE_PREFIX,
    appKey: applicationKey(env.PLATFORM_BOT_TOKEN),
    logger,
    dependencies,
    metrics,
    concurrency: env.WORKER_CONCURRENCY,
    sliceMs: env.SLICE_MS,
    sliceChanges: env.SLICE_CHANGES,
    lockDurationMs: env.WORKER_LOCK_MS,
    reconcileEveryMs: env.RECONCILE_EVERY_MS || null,
    notifyWindowMs: env.NOTIFY_WINDOW_MS,
    notifySweepEveryMs: env.NOTIFY_SWEEP_MS,
    notificationRetentionDays: env.NOTIFICATION_RETENTION_DAYS,
    retentionEveryMs: env.RETENTION_SWEEP_EVERY_MS,
    purgeEveryMs: env.PURGE_EVERY_MS,
    notifyBudget: {
      floorPerSecond: env.NOTIFY_SHARE * env.PLATFORM_GLOBAL_PER_SECOND,
      maxPerSecond: env.NOTIFY_MAX_SHARE * env.PLATFORM_GLOBAL_PER_SECOND,
      globalLoad: () => limiter.globalLoad(),
    },
    drift: {
      everyMs: env.DRIFT_POLL_EVERY_MS,
      floorPerSecond: env.DRIFT_POLL_SHARE * env.PLATFORM_GLOBAL_PER_SECOND,
      maxPerSecond: env.DRIFT_POLL_MAX_SHARE * env.PLATFORM_GLOBAL_PER_SECOND,
      globalLoad: () => limiter.globalLoad(),
    },
  });

  metrics.platformEdgeBanSeconds(async () => (await limiter.edgeBanRemaining()) / 1000);
  // Watched, not part of readiness: the worker waits through an outage by itself and resumes after it.
  metrics.dependencies({ db: () => pingDatabase(db.pool), redis: () => redis.ping() }, dependencies);
  const app = createHttpApp({
    // Not ready until the job schedulers are registered (jobs/schedulers.ts retries them while Redis is
    // away at start; the worker serves /healthz meanwhile). Later Redis outages do not unready it.
    checks: { schedulers: () => schedulersReady(bot) },
    // Read on each /readyz; `http` is assigned below, before the first request can arrive.
    draining: () => http.draining,
    metrics,
    logger,
  });
  const http = serve(app, {
    name: 'bot worker',
    port: env.WORKER_PORT,
    host: env.WORKER_HOST,
    portVar: 'WORKER_PORT',
    logger,
    drainMs: drainMs(env),
  });
  logger.info('bot worker started', { concurrency: env.WORKER_CONCURRENCY, platform: env.PLATFORM_API_URL });

  onShutdown(logger, [
    // /readyz turns 503 at once; the active slices finish during the drain window, not after it.
    { name: 'http and worker (waits for the active slices)', run: () => Promise.all([http.drain(), bot.close()]) },
    { name: 'database', run: () => db.close() },
    { name: 'redis', run: async () => void (await Promise.allSettled([closeRedis(redis), closeRedis(workerRedis)])) },
  ]);
}

function schedulersReady(bot: { schedulersRegistered(): boolean }): void {
  if (!bot.schedulersRegistered()) throw new Error('job schedulers not registered yet (waiting for Redis)');
}

runMain('bot-worker', main);
