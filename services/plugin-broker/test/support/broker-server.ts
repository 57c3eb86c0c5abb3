import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMetrics } from '@rolelink/runtime';
import type { BrokerContext } from '../../src/context';
import { checkSoon } from '../../src/plugin-calls-handlers';
import { createBrokerServer } from '../../src/server';
import type { BrokerWorker } from '../../src/worker';

import type { Express } from 'express';

export type ListeningBroker = { url: string; token: string; app: Express; close(): Promise<void> };

/** The broker's real HTTP server (health, metrics, internal routes) on a loopback port of its own, with a fresh internal token. */
export async function listenBroker(ctx: BrokerContext, broker: BrokerWorker): Promise<ListeningBroker> {
  const token = randomBytes(32).toString('hex');
  const app = createBrokerServer({
    logger: ctx.logger,
    metrics: createMetrics('plugin-broker', { defaultMetrics: false }),
    readiness: {},
    draining: () => false,
    internal: { ctx, token, registered: (linkId) => checkSoon(ctx, broker.jobs, linkId) },
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    app,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
