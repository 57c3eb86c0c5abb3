import { platformAuthorizeUrl } from '@rolelink/domain';
import { createDb, pingDatabase } from '@rolelink/db/client';
import { shapeErrorReporter } from '@rolelink/platform-client';
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
import { createApp } from './app';
import { buildContext } from './context';
import { loadEnv } from './env';
import { startDashboardMaintenance } from './maintenance';
import { DEFAULT_WEB_DIST } from './web-app/static-app';

function main(): void {
  const env = loadEnv();

  const logger = createLogger('dashboard', env.LOG_LEVEL);
  if (env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS.length > 0) {
    logger.warn(
      'ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS is set: links may point at these private hosts (tests and local runs only)',
      { hosts: env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS },
    );
  }
  const db = createDb(env.DATABASE_URL, { max: 10, sessionUrl: env.DATABASE_SESSION_URL, sessionMax: 1 });
  const redis = producerConnection(env.REDIS_URL);
  const limiterRedis = producerConnection(env.REDIS_URL, { enableOfflineQueue: true });
  const metrics = createMetrics('dashboard');
  const wired = buildContext({
    db,
    redis,
    limiterRedis,
    prefix: env.QUEUE_PREFIX,
    secretKey: secretKeyring(env),
    allowPrivatePluginHosts: env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
    platform: { apiUrl: env.PLATFORM_API_URL, botToken: env.PLATFORM_BOT_TOKEN },
    oauth: {
      apiUrl: env.PLATFORM_API_URL,
      authorizeUrl: platformAuthorizeUrl(env.PLATFORM_API_URL, env.PLATFORM_OAUTH_AUTHORIZE_URL),
      clientId: env.PLATFORM_OAUTH_CLIENT_ID,
      clientSecret: env.PLATFORM_OAUTH_CLIENT_SECRET,
      redirectUri: `${env.DASHBOARD_PUBLIC_URL}/auth/callback`,
    },
    broker: { url: env.BROKER_URL, token: env.BROKER_INTERNAL_TOKEN },
    logger,
    onShapeError: shapeErrorReporter(metrics.platformShapeErrors(), logger),
  });
  // Watched, not part of readiness: an outage must not take every dashboard pod out of the load balancer.
  // One line per change of PostgreSQL's or Redis's state.
  const dependencies = new DependencyLog(logger);
  dependencies.watch('redis', redis);
  metrics.dependencies({ db: () => pingDatabase(db.pool), redis: () => redis.ping() }, dependencies);
  // The audit retention sweep's job and scheduler (maintenance.ts): BullMQ's blocking reads need a connection of their own.
  const maintenanceRedis = workerConnection(env.REDIS_URL);
  const maintenance = startDashboardMaintenance({
    connection: maintenanceRedis,
    prefix: env.QUEUE_PREFIX,
    logger,
    dependencies,
    // The audit retention sweep holds a session advisory lock for its run: PostgreSQL directly, not a pooler.
    pool: db.session,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    retentionEveryMs: env.RETENTION_SWEEP_EVERY_MS,
  });

  const app = createApp({
    logger,
    metrics,
    readiness: {},
    // Read on each /readyz; `server` is assigned below, before the first request can arrive.
    draining: () => server.draining,
    ctx: wired.ctx,
    oauth: wired.oauth,
    redis,
    prefix: env.QUEUE_PREFIX,
    sessionSecret: env.DASHBOARD_SESSION_SECRET,
    publicOrigin: env.DASHBOARD_PUBLIC_URL,
    webDist: env.DASHBOARD_WEB_DIST ?? DEFAULT_WEB_DIST,
  });

  const server = serve(app, {
    name: 'dashboard',
    port: env.DASHBOARD_PORT,
    host: env.DASHBOARD_HOST,
    portVar: 'DASHBOARD_PORT',
    logger,
    drainMs: drainMs(env),
  });
  logger.info('dashboard open at', { url: env.DASHBOARD_PUBLIC_URL });

  onShutdown(logger, [
    { name: 'http (drain, then stop accepting and finish in-flight requests)', run: () => server.drain() },
    { name: 'plugin calls and sync requests', run: () => wired.close() },
    { name: 'maintenance jobs (audit retention)', run: () => maintenance.close() },
    { name: 'maintenance redis', run: () => closeRedis(maintenanceRedis) },
    {
      name: 'redis',
      run: async () => {
        await redis.quit();
        limiterRedis.disconnect();
      },
    },
    { name: 'database', run: () => db.close() },
  ]);
}

runMain('dashboard', main);
