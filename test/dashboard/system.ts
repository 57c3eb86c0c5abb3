// The whole product in one test process, each part over real HTTP on its own port: the platform
// emulator (with OAuth2 sign-in), the User Management API, the plugin broker, the bot worker, the
// example plugin (HTTPS), and the dashboard serving its built front end. Database and queue prefix are
// the test's own. Used by the dashboard's API tests and its browser tests.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pingDatabase } from '@rolelink/db/client';
import { applicationKey, createPlatformClient } from '@rolelink/platform-client';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { producerConnection, SyncNotifier, workerConnection } from '@rolelink/queue';
import { createMetrics, silentLogger } from '@rolelink/runtime';
import { createApi } from '../../services/api/src/app';
import { createBotWorker, type BotWorker } from '../../services/bot-worker/src/worker';
import { createApp as createDashboardApp } from '../../services/dashboard/src/app';
import { buildContext } from '../../services/dashboard/src/context';
import { DEFAULT_WEB_DIST } from '../../services/dashboard/src/web-app/static-app';
import { ConfigCache } from '../../services/plugin-broker/src/config-cache';
import { DEFAULT_PLUGIN_TIMEOUTS, type BrokerContext } from '../../services/plugin-broker/src/context';
import { listenBroker } from '../../services/plugin-broker/test/support/broker-server';
import { PluginHttp } from '@rolelink/plugin-http';
import { createBrokerWorker, type BrokerWorker } from '../../services/plugin-broker/src/worker';
import { createPluginApp } from '../../examples/plugin-server/src/app';
import type { TestPlugin } from '../../services/plugin-broker/test/support/test-plugin';
import { startHostilePlugin } from './hostile-plugin';
import { demoMemberIds, pushList } from '../../examples/plugin-server/src/push';
import { Registrations } from '../../examples/plugin-server/src/registrations';
import { writeSelfSignedCert } from '../../examples/plugin-server/src/tls';
import { DEMO, demoSeed } from '../../scripts/stack/config';
import { createTestDb, type TestDb } from '../support/db';
import { REDIS_URL, dropPrefix, testQueuePrefix } from '../support/redis';
import type { AppRoute } from '../support/routes';

export const SECRET_KEY = Buffer.alloc(32, 7);
export const OAUTH = { clientId: '1000000000000000077', clientSecret: 'test-oauth-secret' };

export type DashboardSystem = {
  /** The dashboard's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  apiUrl: string;
  pluginUrl: string;
  emulator: RunningEmulator;
  db: TestDb;
  prefix: string;
  registrations: Registrations;
  /** A second plugin whose every string carries markup (XSS checks). */
  hostile: TestPlugin;
  /**
   * The Express apps behind the URLs (their routers list the routes, test/errors walks them), and the
   * API's link routes, which its link pipeline serves outside the app's router (createApi's linkRoutes).
   */
  apps: { api: Express; apiLinkRoutes: AppRoute[]; broker: Express; dashboard: Express };
  brokerUrl: string;
  brokerToken: string;
  /**
   * Asks for a link's sync as the dashboard's own actions do (its SyncNotifier). An admin call a test makes
   * directly (setPlan, say) passes it: with a no-op the links it marked wait for whatever job comes next.
   */
  requestSync: (linkId: string) => Promise<unknown>;
  close(): Promise<void>;
};

async function listen(server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const closeServer = (server: http.Server | https.Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

export async function startDashboardSystem(
  options: { members?: number; withWorker?: boolean; eventSweepEveryMs?: number } = {},
): Promise<DashboardSystem> {
  const logger = silentLogger();
  const db = await createTestDb();
  const prefix = testQueuePrefix();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-dashboard-'));
  const closers: (() => Promise<unknown> | void)[] = [];

  const emulator = await startEmulator({
    port: 0,
    seed: demoSeed(options.members ?? 300),
    oauth: OAUTH,
    botToken: DEMO.botToken,
  });
  closers.push(() => emulator.close());
  const producer = producerConnection(REDIS_URL);
  const offline = producerConnection(REDIS_URL, { enableOfflineQueue: true });
  const blocking = workerConnection(REDIS_URL);
  closers.push(() => {
    producer.disconnect();
    offline.disconnect();
    blocking.disconnect();
  });

  // The User Management API, where the example plugin pushes its list.
  const sync = new SyncNotifier(producer, prefix, logger);
  closers.push(() => sync.close());
  // Served as main.ts serves it (the link pipeline, then Express); its Express app only lists the routes.
  const api = createApi({ pool: db.pool, sync, logger });
  const apiServer = http.createServer(api.serverOptions, api.listener);
  const apiUrl = `http://127.0.0.1:${await listen(apiServer)}`;
  closers.push(() => closeServer(apiServer));

  // The dashboard listens first: its origin is the plugin's allowed frame ancestor and the OAuth2 redirect.
  const dashboardServer = http.createServer();
  const url = `http://127.0.0.1:${await listen(dashboardServer)}`;
  // As on the platform, sign-in takes only a registered redirect: the dashboard's callback.
  emulator.state.registerRedirectUri(`${url}/auth/callback`);
  closers.push(() => closeServer(dashboardServer));

  // The example plugin over HTTPS with a certificate of its own, trusted by the broker.
  const tls = await writeSelfSignedCert(path.join(dir, 'cert.pem'), path.join(dir, 'key.pem'));
  const registrations = new Registrations(path.join(dir, 'plugin-state.json'));
  const pluginServer = https.createServer({ cert: tls.cert, key: tls.key });
  const pluginUrl = `https://127.0.0.1:${await listen(pluginServer)}`;
  const inflight = new AbortController();
  pluginServer.on(
    'request',
    createPluginApp({
      registrations,
      defaultCount: 20,
      log: () => undefined,
      publicUrl: pluginUrl,
      dashboardOrigins: [url],
      onListWanted: (link, count) => {
        void pushList(apiUrl, link, demoMemberIds(DEMO.firstMemberId, count), {
          retryForMs: 10_000,
          signal: inflight.signal,
        }).catch(() => undefined);
      },
    }),
  );
  closers.push(() => {
    inflight.abort();
    return closeServer(pluginServer);
  });

  const hostile = await startHostilePlugin();
  closers.push(() => hostile.close());

  // The plugin broker: the only thing that calls the plugins (it trusts both test certificates).
  const pluginHttp = new PluginHttp({ allowHosts: ['127.0.0.1'], ca: `${tls.cert}\n${hostile.ca}` });
  const brokerCtx: BrokerContext = {
    db: db.pool,
    http: pluginHttp,
    cache: new ConfigCache(producer, prefix),
    secretKey: SECRET_KEY,
    allowHosts: ['127.0.0.1'],
    timeouts: DEFAULT_PLUGIN_TIMEOUTS,
    logger,
    now: Date.now,
  };
  // Events to plugins are sent only where a test asks for the sweep (the others keep their queues quiet).
  const broker: BrokerWorker = createBrokerWorker(brokerCtx, {
    connection: blocking,
    prefix,
    concurrency: 8,
    ...(options.eventSweepEveryMs !== undefined ? { eventSweepEveryMs: options.eventSweepEveryMs } : {}),
  });
  await broker.ready();
  const brokerServer = await listenBroker(brokerCtx, broker);
  closers.push(async () => {
    await brokerServer.close();
    await broker.close();
    pluginHttp.close();
  });

  // The bot worker, so links really sync to the emulator while the browser watches.
  if (options.withWorker !== false) {
    const workerBlocking = workerConnection(REDIS_URL);
    const platform = createPlatformClient({
      apiUrl: `${emulator.apiBase}/v10`,
      token: DEMO.botToken,
      redis: offline,
      keyPrefix: prefix,
    });
    const worker: BotWorker = createBotWorker({
      db: db.pool,
      api: platform.api,
      workerRedis: workerBlocking,
      redis: producer,
      prefix,
      appKey: applicationKey(DEMO.botToken),
      logger,
      concurrency: 2,
      sliceMs: 2_000,
      sliceChanges: 500,
      lockDurationMs: 30_000,
      reconcileEveryMs: null,
      // Notifications go out within a moment of their event (the default looks every 5 s).
      notifySweepEveryMs: 300,
    });
    closers.push(async () => {
      await worker.close();
      workerBlocking.disconnect();
    });
  }

  const wired = buildContext({
    db,
    redis: producer,
    limiterRedis: offline,
    prefix,
    secretKey: SECRET_KEY,
    allowPrivatePluginHosts: ['127.0.0.1'],
    platform: { apiUrl: `${emulator.apiBase}/v10`, botToken: DEMO.botToken },
    oauth: {
      apiUrl: `${emulator.apiBase}/v10`,
      authorizeUrl: `${emulator.url}/oauth2/authorize`,
      ...OAUTH,
      redirectUri: `${url}/auth/callback`,
    },
    broker: { url: brokerServer.url, token: brokerServer.token },
    logger,
  });
  closers.push(() => wired.close());
  const dashboardApp = createDashboardApp({
    logger,
    metrics: createMetrics('dashboard', { defaultMetrics: false }),
    readiness: { db: () => pingDatabase(db.pool), redis: () => producer.ping() },
    draining: () => false,
    ctx: wired.ctx,
    oauth: wired.oauth,
    redis: producer,
    prefix,
    sessionSecret: 'a-test-session-secret-of-at-least-32-chars',
    publicOrigin: url,
    webDist: DEFAULT_WEB_DIST,
  });
  dashboardServer.on('request', dashboardApp);

  return {
    url,
    apiUrl,
    pluginUrl,
    emulator,
    db,
    prefix,
    registrations,
    hostile,
    apps: { api: api.app, apiLinkRoutes: api.linkRoutes, broker: brokerServer.app, dashboard: dashboardApp },
    brokerUrl: brokerServer.url,
    brokerToken: brokerServer.token,
    requestSync: (linkId) => wired.ctx.admin.requestSync(linkId),
    async close() {
      for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
      await dropPrefix(prefix);
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
