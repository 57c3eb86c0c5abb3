import http from 'node:http';
import { startService, type RunningService } from '../../../scripts/service-process';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { ownRedis, type OwnRedis } from '../../../test/support/own-redis';
import { testQueuePrefix } from '../../../test/support/redis';
import { until } from '../../../test/support/until';

// Readiness means "this process can take traffic", not "PostgreSQL and Redis answer".
// A shared outage fails every replica at once; had readiness followed it, the load balancer would be left
// with no backend, where the API answers each request 503 with Retry-After instead.

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('API readiness during a Redis outage', () => {
  let db: TestDb;
  let redis: OwnRedis;
  let api: RunningService | undefined;

  beforeAll(async () => {
    db = await createTestDb();
    redis = await ownRedis();
    await redis.start();
  });

  afterAll(async () => {
    await api?.stop();
    await redis.kill();
    await db.drop();
  });

  it('stays ready while Redis is down, and /metrics reports the dependency down', async () => {
    api = await startService('api', 'tsx', {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: testQueuePrefix(),
      API_RATE_LIMIT: 'off',
    });
    const metrics = () => get(api!.port, '/metrics');
    // Ready does not wait for Redis (the point of this test), so a first scrape can come before the API's
    // Redis connection is (its probe fails at once then: no offline queue). Ask until it reports Redis up.
    const up = await until(
      metrics,
      (r) => /^rolelink_dependency_up\{dependency="redis",service="api"\} 1$/m.test(r.body),
      'the API to report Redis up',
      60_000,
    );
    expect(up.body).toMatch(/^rolelink_dependency_up\{dependency="db",service="api"\} 1$/m);

    await redis.kill();
    // Wait until the process itself has seen the outage (the probe at scrape time fails)...
    await until(
      metrics,
      (r) => /^rolelink_dependency_up\{dependency="redis",service="api"\} 0$/m.test(r.body),
      'the API to report Redis down',
      60_000,
    );
    // ...and it still takes traffic.
    const ready = await get(api.port, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'ready' });
    expect((await get(api.port, '/metrics')).body).toMatch(
      /^rolelink_dependency_up\{dependency="db",service="api"\} 1$/m,
    );
    // Back up before the process stops, so its shutdown closes Redis cleanly.
    await redis.start();
  });
});
