import request from 'supertest';
import { createMetrics, memoryLogger, silentLogger } from '@rolelink/runtime';
import { createHttpApp } from './http';
import { bodyOf } from '../../../test/support/body';

describe('worker http server', () => {
  it('answers liveness, readiness, and Prometheus metrics with the state of its dependencies', async () => {
    const metrics = createMetrics('bot-worker-test', { defaultMetrics: false });
    metrics.roleChanges().inc({ action: 'add', result: 'applied' });
    metrics.dependencies({ db: () => Promise.resolve(1), redis: () => Promise.reject(new Error('ECONNREFUSED')) });
    const server = createHttpApp({ checks: {}, draining: () => false, metrics, logger: silentLogger() });
    await request(server).get('/healthz').expect(200, { status: 'ok' });
    // Redis being down is not this process's fault and does not take it out of service.
    const ready = await request(server).get('/readyz').expect(200);
    expect(bodyOf<{ status: string }>(ready).status).toBe('ready');
    const text = (await request(server).get('/metrics').expect(200)).text;
    expect(text).toContain('rolelink_role_changes_total{action="add",result="applied",service="bot-worker-test"} 1');
    expect(text).toContain('rolelink_dependency_up{dependency="db",service="bot-worker-test"} 1');
    expect(text).toContain('rolelink_dependency_up{dependency="redis",service="bot-worker-test"} 0');
  });

  it('reports not ready while draining for shutdown', async () => {
    const server = createHttpApp({
      checks: {},
      draining: () => true,
      metrics: createMetrics('drain', { defaultMetrics: false }),
      logger: silentLogger(),
    });
    await request(server).get('/readyz').expect(503);
  });

  it('logs its probes only at debug and any other request at info', async () => {
    const { logger, lines } = memoryLogger('bot-worker', 'info');
    const server = createHttpApp({
      checks: {},
      draining: () => false,
      metrics: createMetrics('probes', { defaultMetrics: false }),
      logger,
    });
    for (const path of ['/healthz', '/readyz', '/metrics']) await request(server).get(path).expect(200);
    await request(server).get('/elsewhere').expect(404);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', message: 'http request', route: '(unmatched)', status: 404 }),
    ]);
  });
});
