import request from 'supertest';
import { createMetrics, silentLogger } from '@rolelink/runtime';
import { createApp } from './app';

function build(readiness: Parameters<typeof createApp>[0]['readiness'] = {}, draining = false) {
  return createApp({ logger: silentLogger(), metrics: createMetrics('dashboard', { defaultMetrics: false }), readiness, draining: () => draining });
}

describe('dashboard placeholder app', () => {
  it('serves a page saying the dashboard is coming', async () => {
    const res = await request(build()).get('/').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('The dashboard is coming');
  });

  it('is alive and ready when its dependencies answer', async () => {
    const app = build({ db: async () => 1, redis: async () => 'PONG' });
    await request(app).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(app).get('/readyz').expect(200);
    expect(ready.body.checks).toMatchObject({ db: { status: 'up' }, redis: { status: 'up' } });
  });

  it('is not ready while the database does not answer', async () => {
    const app = build({ db: async () => Promise.reject(new Error('ECONNREFUSED')) });
    await request(app).get('/readyz').expect(503);
  });

  it('is not ready while draining', async () => {
    await request(build({}, true)).get('/readyz').expect(503);
  });

  it('exposes request metrics labelled with the service', async () => {
    const app = build();
    await request(app).get('/');
    const res = await request(app).get('/metrics').expect(200);
    expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/"[^}]*service="dashboard"|http_requests_total\{[^}]*service="dashboard"[^}]*route="\/"/);
  });

  it('answers unknown routes with the spec error body', async () => {
    const res = await request(build()).get('/nope').expect(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Route not found: GET /nope' });
  });
});
