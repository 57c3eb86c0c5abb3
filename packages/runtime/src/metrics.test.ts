import express, { Router } from 'express';
import request from 'supertest';
import { AppError } from './app-error';
import { DependencyLog } from './dependency-log';
import { memoryLogger } from './logger';
import { COLLECT_TIMEOUT_MS } from './bounded-sample';
import { createMetrics, MetricName, UNMATCHED_ROUTE } from './metrics';

function buildApp() {
  const metrics = createMetrics('test-svc', { defaultMetrics: false });
  const app = express();
  app.use(metrics.httpMiddleware());
  app.get('/metrics', metrics.handler());
  const links = Router();
  links.get('/:guildId/:roleId/users', (_req, res) => {
    res.json({ data: [] });
  });
  links.put('/:guildId/:roleId/users', () => {
    throw new AppError(400, 'Validation error');
  });
  app.use('/api/role-link', links);
  app.use((err: AppError, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status).json(err.toBody());
  });
  return { app, metrics };
}

async function valueOf(
  metrics: ReturnType<typeof createMetrics>,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
}

describe('createMetrics', () => {
  it('labels requests with the matched route pattern, not the raw path', async () => {
    const { app, metrics } = buildApp();
    await request(app).get('/api/role-link/1/2/users').expect(200);
    await request(app).get('/api/role-link/3/4/users').expect(200);
    expect(
      await valueOf(metrics, MetricName.httpRequests, {
        route: '/api/role-link/:guildId/:roleId/users',
        status: '200',
        method: 'GET',
      }),
    ).toBe(2);
  });

  it('keeps the full pattern when an error leaves a sub-router', async () => {
    const { app, metrics } = buildApp();
    await request(app).put('/api/role-link/1/2/users').expect(400);
    expect(
      await valueOf(metrics, MetricName.httpRequests, {
        route: '/api/role-link/:guildId/:roleId/users',
        status: '400',
        method: 'PUT',
      }),
    ).toBe(1);
  });

  it('labels requests no route matched as unmatched', async () => {
    const { app, metrics } = buildApp();
    await request(app).get('/no/such/path/12345').expect(404);
    expect(await valueOf(metrics, MetricName.httpRequests, { route: UNMATCHED_ROUTE, status: '404' })).toBe(1);
  });

  it('serves the Prometheus text format with the service label and the duration histogram', async () => {
    const { app } = buildApp();
    await request(app).get('/api/role-link/1/2/users');
    const res = await request(app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const bucket = res.text.split('\n').find((l) => l.startsWith('http_request_duration_seconds_bucket{le="0.005"'));
    expect(bucket).toContain('route="/api/role-link/:guildId/:roleId/users"');
    expect(bucket).toContain('service="test-svc"');
  });

  it('includes Node default metrics unless turned off', async () => {
    const metrics = createMetrics('defaults');
    expect(await metrics.registry.metrics()).toMatch(/^process_cpu_user_seconds_total\{service="defaults"\}/m);
  });

  it('returns the same metric when a factory is asked twice', () => {
    const metrics = createMetrics('twice', { defaultMetrics: false });
    expect(metrics.roleChanges()).toBe(metrics.roleChanges());
    expect(metrics.pluginCalls()).toBe(metrics.pluginCalls());
  });

  it('reads queue depth at scrape time from the sampler', async () => {
    const metrics = createMetrics('worker', { defaultMetrics: false });
    let waiting = 3;
    metrics.queueDepth(() => Promise.resolve([{ queue: 'role-sync', state: 'waiting', count: waiting }]));
    expect(await valueOf(metrics, MetricName.queueJobs, { queue: 'role-sync', state: 'waiting' })).toBe(3);
    waiting = 7;
    expect(await valueOf(metrics, MetricName.queueJobs, { queue: 'role-sync', state: 'waiting' })).toBe(7);
  });

  it('creates every operational metric under its documented name', async () => {
    const metrics = createMetrics('all', { defaultMetrics: false });
    metrics.jobDuration().observe({ queue: 'role-sync', job: 'sync', outcome: 'completed' }, 0.2);
    metrics.roleChanges().inc({ action: 'add', result: 'applied' });
    metrics.platformRateLimited().inc({ scope: 'user' });
    metrics.platformInvalidRequests().inc({ status: '403' });
    metrics.platformEdgeBans().inc();
    metrics.platformShapeErrors().inc({ route: 'GET /guilds/{guild.id}' });
    metrics.platformEdgeBanSeconds(() => Promise.resolve(42));
    metrics.pluginCalls().inc({ call: 'register', outcome: 'ok' });
    metrics.pluginCallDuration().observe({ call: 'register' }, 0.1);
    metrics.pluginHealth().set({ status: 'healthy' }, 4);
    const text = await metrics.registry.metrics();
    for (const name of [
      MetricName.jobDuration,
      MetricName.roleChanges,
      MetricName.platformRateLimited,
      MetricName.platformInvalidRequests,
      MetricName.platformEdgeBans,
      MetricName.platformShapeErrors,
      MetricName.platformEdgeBanSeconds,
      MetricName.pluginCalls,
      MetricName.pluginCallDuration,
      MetricName.pluginHealth,
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toContain(`${MetricName.platformEdgeBanSeconds}{service="all"} 42`);
  });

  it('reads the sync lag gauges from one sample per scrape, and reports the last figures, stale, instead of failing the scrape when it cannot read', async () => {
    const metrics = createMetrics('lag', { defaultMetrics: false });
    const samples = [
      { linksBehind: 2, pendingChanges: 250_010, maxLinkPendingChanges: 250_000, oldestUnappliedSeconds: 600 },
    ];
    let reads = 0;
    metrics.syncLag(() => {
      reads++;
      const next = samples.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('database down'));
    });
    const first = await metrics.registry.metrics();
    expect(reads).toBe(1);
    expect(first).toContain(`${MetricName.syncLinksBehind}{service="lag"} 2`);
    expect(first).toContain(`${MetricName.syncPendingChanges}{service="lag"} 250010`);
    expect(first).toContain(`${MetricName.syncMaxLinkPendingChanges}{service="lag"} 250000`);
    expect(first).toContain(`${MetricName.syncOldestUnapplied}{service="lag"} 600`);
    expect(first).toContain(`${MetricName.collectorStale}{collector="sync_lag",service="lag"} 0`);
    const second = await metrics.registry.metrics();
    expect(reads).toBe(2);
    expect(second).toContain(`${MetricName.syncOldestUnapplied}{service="lag"} 600`);
    expect(second).toContain(`${MetricName.collectorStale}{collector="sync_lag",service="lag"} 1`);
  });

  it('answers a scrape within one collect timeout when Redis hangs and PostgreSQL refuses, however the collectors are ordered', async () => {
    // As in the bot worker with both down: Redis commands wait in ioredis's offline queue (never settle), a
    // PostgreSQL read is refused after an I/O turn (setImmediate, left real). Asked one by one, the
    // collectors would fail it: a refused read asked again takes that I/O turn, meanwhile the next hanging
    // collector's timeout ends its scrape's join, and asking it then begins a second wait.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const metrics = createMetrics('hang', { defaultMetrics: false });
      const hang = () => new Promise<never>(() => undefined);
      const refused = () =>
        new Promise<never>((_resolve, reject) => setImmediate(() => reject(new Error('connect ECONNREFUSED'))));
      metrics.platformEdgeBanSeconds(hang);
      metrics.syncLag(refused);
      metrics.driftCoverage(refused);
      metrics.queueDepth(hang);
      let text: string | undefined;
      const scrape = metrics.registry.metrics().then((t) => (text = t));
      // Logical time, not the wall clock: one timeout's worth, and the refusals' I/O turns, settle the scrape.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      await jest.advanceTimersByTimeAsync(COLLECT_TIMEOUT_MS);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(text).toBeDefined();
      for (const collector of ['edge_ban', 'sync_lag', 'drift_poll', 'queue_jobs'])
        expect(text).toContain(`${MetricName.collectorStale}{collector="${collector}",service="hang"} 1`);
      await scrape;
    } finally {
      jest.useRealTimers();
    }
  });

  it('reports NaN, unknown, while no sync lag read has succeeded yet', async () => {
    const metrics = createMetrics('lag', { defaultMetrics: false });
    metrics.syncLag(() => Promise.reject(new Error('database down')));
    const text = await metrics.registry.metrics();
    // prom-client writes NaN as "Nan"; Prometheus parses the value with Go's ParseFloat, which takes either case.
    expect(text).toMatch(new RegExp(`^${MetricName.syncOldestUnapplied}\\{service="lag"\\} nan$`, 'im'));
    expect(text).toContain(`${MetricName.collectorStale}{collector="sync_lag",service="lag"} 1`);
  });

  it('keeps the last queue counts, stale, when the queue cannot be read, instead of failing the scrape', async () => {
    const metrics = createMetrics('q', { defaultMetrics: false });
    let up = true;
    metrics.queueDepth(() =>
      up
        ? Promise.resolve([{ queue: 'role-sync', state: 'waiting', count: 12 }])
        : Promise.reject(new Error('Connection is closed.')),
    );
    expect(await metrics.registry.metrics()).toContain(
      `${MetricName.queueJobs}{queue="role-sync",state="waiting",service="q"} 12`,
    );
    up = false;
    const text = await metrics.registry.metrics();
    expect(text).toContain(`${MetricName.queueJobs}{queue="role-sync",state="waiting",service="q"} 12`);
    expect(text).toContain(`${MetricName.collectorStale}{collector="queue_jobs",service="q"} 1`);
  });

  it('reports a dependency whose probe fails as 0, and logs its change of state once', async () => {
    const { logger, lines } = memoryLogger();
    const metrics = createMetrics('d', { defaultMetrics: false });
    let up = true;
    metrics.dependencies(
      { redis: () => (up ? 'PONG' : Promise.reject(new Error('connect ECONNREFUSED'))) },
      new DependencyLog(logger),
    );
    expect(await metrics.registry.metrics()).toContain(`${MetricName.dependencyUp}{dependency="redis",service="d"} 1`);
    up = false;
    for (let i = 0; i < 3; i++)
      expect(await metrics.registry.metrics()).toContain(
        `${MetricName.dependencyUp}{dependency="redis",service="d"} 0`,
      );
    up = true;
    expect(await metrics.registry.metrics()).toContain(`${MetricName.dependencyUp}{dependency="redis",service="d"} 1`);
    expect(lines.map((l) => l.message)).toEqual(['redis down', 'redis back up']);
  });
});
