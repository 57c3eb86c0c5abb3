import http from 'node:http';
import { productionEnv, startService, type RunningService, type ServiceName } from '../../scripts/service-process';
import { createTestDb, type TestDb } from '../support/db';
import { ownRedis, type OwnRedis } from '../support/own-redis';
import { testQueuePrefix } from '../support/redis';
import { tcpRelay, type TcpRelay } from '../support/tcp-relay';
import { report, type Figure } from './figures';

// With Redis stopped, a /metrics that answers 500 or hangs leaves rolelink_dependency_up{redis}=0
// unscraped and sends the operator to the wrong runbook.
// Every service, each its own process in production mode, against a Redis of this test's own and the
// shared PostgreSQL behind a relay the test stops (the shared servers stay up for everyone else): after
// both go away every /metrics still answers 200 with both dependencies at 0, the scrape-time collectors
// report their last values marked stale, and each service logs the Redis outage once, not per attempt.
// The bound itself (a collector waits at most COLLECT_TIMEOUT_MS) is proven without a clock in
// packages/runtime/src/bounded-sample.test.ts; the scrape times here are figures, not assertions.

const SERVICES: ServiceName[] = ['api', 'plugin-broker', 'bot-worker', 'dashboard'];
/** Generous: a scrape that takes this long is the hang this test is about (the broker's passed 30 s). */
const SCRAPE_TIMEOUT_MS = 20_000;

type Scrape = { status: number; body: string; ms: number };

function scrape(port: number): Promise<Scrape> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: SCRAPE_TIMEOUT_MS }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error(`/metrics did not answer within ${SCRAPE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

/** The value of the first sample of `name` whose labels include `labels`. */
function sample(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

const lines = (s: RunningService, message: RegExp) =>
  s
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { message: string })
    .filter((l) => message.test(l.message));

describe('every /metrics with Redis and PostgreSQL stopped', () => {
  let db: TestDb;
  let redis: OwnRedis;
  let pg: TcpRelay;
  const running = new Map<ServiceName, RunningService>();
  const figures: Figure[] = [];

  beforeAll(async () => {
    db = await createTestDb();
    redis = await ownRedis();
    await redis.start();
    pg = await tcpRelay(Number(new URL(db.url).port || 5432));
    const env = productionEnv(pg.via(db.url), redis.url, testQueuePrefix());
    // One at a time: four start-ups at once on a loaded 2-core host only slow each other down.
    for (const name of SERVICES) running.set(name, await startService(name, 'tsx', env, { timeoutMs: 120_000 }));
  }, 600_000);

  afterAll(async () => {
    await Promise.all([...running.values()].map((s) => s.stop()));
    await pg?.stop();
    await redis?.kill();
    await db?.drop();
    report(figures);
  });

  it('reports both dependencies up while they are', async () => {
    for (const [name, s] of running) {
      const up = await scrape(s.port);
      expect({ name, status: up.status }).toEqual({ name, status: 200 });
      expect({
        name,
        db: sample(up.body, 'rolelink_dependency_up', { dependency: 'db' }),
        redis: sample(up.body, 'rolelink_dependency_up', { dependency: 'redis' }),
      }).toEqual({ name, db: 1, redis: 1 });
    }
    // The API reports the outbox's age too, so the sync alerts see it with no worker running.
    const api = (await scrape(running.get('api')!.port)).body;
    expect(sample(api, 'rolelink_sync_oldest_unapplied_seconds')).toBe(0);
    expect(sample(api, 'rolelink_metrics_stale', { collector: 'sync_lag' })).toBe(0);
    const worker = (await scrape(running.get('bot-worker')!.port)).body;
    expect(sample(worker, 'rolelink_queue_jobs', { queue: 'role-sync', state: 'waiting' })).toBe(0);
    expect(sample(worker, 'rolelink_metrics_stale', { collector: 'queue_jobs' })).toBe(0);
    expect(sample(worker, 'rolelink_metrics_stale', { collector: 'sync_lag' })).toBe(0);
    expect(sample(worker, 'rolelink_sync_links_behind')).toBe(0);
  });

  it('answers 200 with both at 0 and the last values marked stale once both are stopped', async () => {
    await redis.kill();
    await pg.stop();
    for (const [name, s] of running) {
      // Three scrapes each: the first starts probes that the outage leaves hanging; the later ones must
      // neither wait on them nor pile up more.
      for (let i = 0; i < 3; i++) {
        const down = await scrape(s.port);
        figures.push({
          scenario: 'metrics outage',
          name: `${name} /metrics ms, Redis and PostgreSQL down (scrape ${i + 1})`,
          value: Math.round(down.ms),
          goal: '≤ 1000',
          met: down.ms <= 1000,
        });
        expect({ name, status: down.status }).toEqual({ name, status: 200 });
        expect({
          name,
          db: sample(down.body, 'rolelink_dependency_up', { dependency: 'db' }),
          redis: sample(down.body, 'rolelink_dependency_up', { dependency: 'redis' }),
        }).toEqual({ name, db: 0, redis: 0 });
      }
    }
    const worker = (await scrape(running.get('bot-worker')!.port)).body;
    expect(sample(worker, 'rolelink_metrics_stale', { collector: 'queue_jobs' })).toBe(1);
    expect(sample(worker, 'rolelink_metrics_stale', { collector: 'sync_lag' })).toBe(1);
    // The last values read, not an empty gauge nor NaN: what the queue and the outbox held before.
    expect(sample(worker, 'rolelink_queue_jobs', { queue: 'role-sync', state: 'waiting' })).toBe(0);
    expect(sample(worker, 'rolelink_sync_links_behind')).toBe(0);
    const broker = (await scrape(running.get('plugin-broker')!.port)).body;
    expect(sample(broker, 'rolelink_metrics_stale', { collector: 'queue_jobs' })).toBe(1);
    expect(sample(broker, 'rolelink_queue_jobs', { state: 'waiting' })).toBe(0);
  });

  it('logs each outage once per service, however many reconnect attempts and scrapes it spans', async () => {
    for (const [name, s] of running) {
      // Progress, not time: wait until the service has seen both dependencies down, then a few more
      // reconnect attempts (each scrape probes both again).
      await s.logged(/"message":"redis down"/);
      for (let i = 0; i < 3; i++) await scrape(s.port);
      expect({ name, redisDown: lines(s, /^redis down$/).length, dbDown: lines(s, /^db down$/).length }).toEqual({
        name,
        redisDown: 1,
        dbDown: 1,
      });
      // Nothing else about the lost connections: no line per attempt from the BullMQ workers or queues.
      expect({ name, errors: lines(s, /worker error|queue error|redis error/).length }).toEqual({ name, errors: 0 });
    }
  });
});
