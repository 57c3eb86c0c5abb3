import http from 'node:http';
import { productionEnv, startService, type RunningService, type ServiceName } from '../../scripts/service-process';
import { createTestDb, type TestDb } from '../support/db';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';

// For every service: each runs from source as its own process, in production mode,
// with a keep-alive client (what every ingress and load balancer is). The API's in-flight answer is
// tested in services/api/src/drain.int.test.ts.

type Answer = { status: number; connection: string | undefined; body: string };

function get(port: number, path: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

const messages = (s: RunningService) =>
  s
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { message: string }).message);

describe('every service on SIGTERM with a keep-alive client', () => {
  let db: TestDb;
  const prefix = testQueuePrefix();
  const running: RunningService[] = [];

  beforeAll(async () => {
    db = await createTestDb();
  });

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    await db.drop();
    await dropPrefix(prefix);
  });

  it.each<ServiceName>(['api', 'dashboard', 'plugin-broker', 'bot-worker'])(
    '%s answers /readyz 503 on the open connection while draining, then exits 0 after closing everything',
    async (name) => {
      // The drain window only has to outlast two local requests; the test waits on log lines, not on it.
      const service = await startService(name, 'tsx', {
        ...productionEnv(db.url, REDIS_URL, prefix),
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_MS: '3000',
      });
      running.push(service);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const before = await get(service.port, '/readyz', agent);
      expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });

      process.kill(service.pid, 'SIGTERM');
      await service.logged(/"message":"shutting down"/);
      // Same keep-alive socket: still served during the window, told to close, with the spec's error body.
      expect(await get(service.port, '/readyz', agent)).toEqual({
        status: 503,
        connection: 'close',
        body: JSON.stringify({ statusCode: 503, message: 'Shutting down' }),
      });

      expect(await service.exited).toBe(0);
      const lines = messages(service);
      expect(lines).not.toContain('shutdown deadline passed; exiting');
      expect(lines.filter((m) => m.startsWith('shutdown step failed'))).toEqual([]);
      // Logged only once every step ran, PostgreSQL and Redis included.
      expect(lines[lines.length - 1]).toBe('stopped');
      agent.destroy();
    },
  );
});
