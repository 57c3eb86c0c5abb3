import express, { Router } from 'express';
import request from 'supertest';
import { AppError } from './app-error';
import { errorHandler, notFoundRoute, requestId } from './http';
import { healthRouter } from './health';
import { memoryLogger, type LogLine } from './logger';
import { createMetrics } from './metrics';
import { addRequestLogFields, requestLog } from './request-log';

const TOKEN = 'rl_' + 'A1b2C3d4E5f6G7h8J9k0'.repeat(2);

/** The API's shape: a router with mergeParams under a parameterised mount, probes and metrics at the root. */
function buildApp(level = 'info') {
  const { logger, lines } = memoryLogger('test-svc', level);
  const metrics = createMetrics('test-svc', { defaultMetrics: false });
  const app = express();
  app.use(requestId());
  app.use(requestLog(logger));
  app.use(metrics.httpMiddleware());
  app.get('/metrics', metrics.handler());
  app.use(healthRouter());
  const link = Router({ mergeParams: true });
  link.use((_req, res, next) => {
    addRequestLogFields(res, { linkId: '42' });
    next();
  });
  link.get('/users', (_req, res) => {
    res.json({ data: [] });
  });
  link.put('/users', () => {
    throw new AppError(400, 'Validation error');
  });
  link.delete('/users', () => {
    throw new Error('database went away');
  });
  app.use('/api/role-link/:guildId/:roleId', link);
  app.use('/assets/:version', (_req, res) => {
    res.send('a file');
  });
  app.use(notFoundRoute());
  app.use(errorHandler(logger));
  return { app, lines, metrics };
}

const requestLines = (lines: LogLine[]) => lines.filter((l) => l.message === 'http request');

describe('requestLog', () => {
  it('writes one info line with the method, route template, status, duration and request id', async () => {
    const { app, lines } = buildApp();
    await request(app).get('/api/role-link/111/222/users').set('X-Request-Id', 'req-1').expect(200);
    expect(requestLines(lines)).toEqual([
      {
        level: 'info',
        message: 'http request',
        service: 'test-svc',
        requestId: 'req-1',
        method: 'GET',
        route: '/api/role-link/:guildId/:roleId/users',
        status: 200,
        duration_ms: expect.any(Number),
        linkId: '42',
        timestamp: expect.any(String),
      },
    ]);
  });

  it('names each parameter of the mount even when the guild and role ids are equal', async () => {
    const { app, lines } = buildApp();
    await request(app).get('/api/role-link/333/333/users').expect(200);
    expect(requestLines(lines)[0]?.route).toBe('/api/role-link/:guildId/:roleId/users');
  });

  it('logs a 4xx at info with its status and the template of the route that refused it', async () => {
    const { app, lines } = buildApp();
    await request(app).put('/api/role-link/111/222/users').expect(400);
    expect(requestLines(lines)).toEqual([
      expect.objectContaining({
        level: 'info',
        status: 400,
        method: 'PUT',
        route: '/api/role-link/:guildId/:roleId/users',
      }),
    ]);
  });

  it('logs a 5xx at warn and leaves the stack to the error middleware', async () => {
    const { app, lines } = buildApp();
    await request(app).delete('/api/role-link/111/222/users').expect(500);
    const line = requestLines(lines)[0];
    expect(line).toMatchObject({ level: 'warn', status: 500, route: '/api/role-link/:guildId/:roleId/users' });
    expect(JSON.stringify(line)).not.toContain('database went away');
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('labels a request no route matched as unmatched, not with its path', async () => {
    const { app, lines } = buildApp();
    await request(app).get('/no/such/path/12345').expect(404);
    expect(requestLines(lines)).toEqual([
      expect.objectContaining({ level: 'info', status: 404, route: '(unmatched)' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('12345');
  });

  it('labels a request a middleware answered inside a mount with the mount and a star', async () => {
    const { app, lines } = buildApp();
    await request(app).get('/assets/v7/app.js').expect(200);
    expect(requestLines(lines)).toEqual([
      expect.objectContaining({ level: 'info', status: 200, route: '/assets/:version/*' }),
    ]);
  });

  it('never writes the Authorization header, a token in the query string or the ids of the path', async () => {
    const { app, lines } = buildApp();
    await request(app)
      .get(`/api/role-link/987654321/123456789/users?rl_token=${TOKEN}&after=5`)
      .set('Authorization', `Token ${TOKEN}`)
      .expect(200);
    await request(app).get(`/nowhere?rl_token=${TOKEN}`).set('Authorization', `Token ${TOKEN}`).expect(404);
    expect(requestLines(lines)).toHaveLength(2);
    const text = JSON.stringify(lines);
    for (const secret of [TOKEN, 'rl_token', 'Authorization', 'authorization', '987654321', '123456789', 'after=5'])
      expect(text).not.toContain(secret);
  });

  it('keeps the health and metrics probes out of the info log and writes them at debug', async () => {
    const quiet = buildApp('info');
    for (const path of ['/healthz', '/readyz', '/metrics']) await request(quiet.app).get(path).expect(200);
    expect(requestLines(quiet.lines)).toEqual([]);

    const verbose = buildApp('debug');
    for (const path of ['/healthz', '/readyz', '/metrics']) await request(verbose.app).get(path).expect(200);
    expect(requestLines(verbose.lines).map((l) => [l.level, l.route])).toEqual([
      ['debug', '/healthz'],
      ['debug', '/readyz'],
      ['debug', '/metrics'],
    ]);
  });

  it('writes nothing below the configured level', async () => {
    const { app, lines } = buildApp('warn');
    await request(app).get('/api/role-link/111/222/users').expect(200);
    await request(app).delete('/api/role-link/111/222/users').expect(500);
    expect(requestLines(lines).map((l) => l.status)).toEqual([500]);
  });

  it('shares the route template with the metrics middleware', async () => {
    const { app, metrics } = buildApp();
    await request(app).get('/api/role-link/111/222/users').expect(200);
    const values = (await metrics.registry.getSingleMetric('http_requests_total')!.get()).values;
    expect(values.map((v) => v.labels.route)).toEqual(['/api/role-link/:guildId/:roleId/users']);
  });
});
