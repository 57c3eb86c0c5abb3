import express from 'express';
import request from 'supertest';
import { healthRouter, runReadinessChecks } from './health';
import { bodyOf } from '../../../test/support/body';

function appWith(options: Parameters<typeof healthRouter>[0]) {
  const app = express();
  app.use(healthRouter(options));
  return app;
}

describe('healthRouter', () => {
  it('answers /healthz with 200 ok even when a dependency is down', async () => {
    const app = appWith({ checks: { db: () => Promise.reject(new Error('down')) } });
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it("answers /readyz with 200 and every check up when the process's own checks hold", async () => {
    const app = appWith({ checks: { worker: () => Promise.resolve(true), started: () => 'yes' } });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(bodyOf<{ status: string }>(res).status).toBe('ready');
    expect(bodyOf<{ checks: Record<'worker' | 'started', { status: string }> }>(res).checks.worker.status).toBe('up');
    expect(bodyOf<{ checks: Record<'worker' | 'started', { status: string }> }>(res).checks.started.status).toBe('up');
  });

  it("answers /readyz with 503 in the spec's error shape naming the failing check and its error", async () => {
    const app = appWith({
      checks: {
        started: () => Promise.resolve(1),
        worker: () => {
          throw new Error('worker not running\nstack');
        },
      },
    });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(bodyOf<{ statusCode: number; message: string }>(res)).toMatchObject({
      statusCode: 503,
      message: 'Not ready: worker',
    });
    expect(bodyOf<{ checks: Record<'worker' | 'started', { status: string }> }>(res).checks.started.status).toBe('up');
    expect(bodyOf<{ checks: Record<'worker' | 'started', { status: string }> }>(res).checks.worker).toMatchObject({
      status: 'down',
      error: 'worker not running',
    });
  });

  it('counts a check that never settles as down once its timeout passes', async () => {
    const app = appWith({ checks: { slow: () => new Promise(() => undefined) }, timeoutMs: 50 });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(bodyOf<{ checks: Record<'db' | 'redis' | 'slow', { status: string }> }>(res).checks.slow).toMatchObject({
      status: 'down',
      error: 'timed out after 50 ms',
    });
  });

  it("answers /readyz with 503 and the spec's error body while draining, without running the checks", async () => {
    const check = jest.fn(() => Promise.resolve(1));
    const app = appWith({ checks: { worker: check }, draining: () => true });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ statusCode: 503, message: 'Shutting down' });
    expect(check).not.toHaveBeenCalled();
  });

  it('is ready with no checks at all', async () => {
    expect(await runReadinessChecks({})).toEqual({ status: 'ready', checks: {} });
  });
});
