import http from 'node:http';
import { startService, type RunningService } from '../../../scripts/service-process';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink } from '../../../test/support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';

// A SIGTERMed API behind a keep-alive client (every ingress and load balancer is
// one). The process runs from source as its own process, against real PostgreSQL and Redis.

type Answer = { status: number; connection: string | undefined; body: string };

function answerOf(req: http.ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.once('response', (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.once('error', reject);
  });
}

const get = (port: number, path: string, agent: http.Agent) =>
  answerOf(http.get({ host: '127.0.0.1', port, path, agent }));

describe('the API on SIGTERM with keep-alive clients', () => {
  let db: TestDb;
  const prefix = testQueuePrefix();
  let api: RunningService | undefined;

  beforeAll(async () => {
    db = await createTestDb();
  });

  afterAll(async () => {
    await api?.stop();
    await db.drop();
    await dropPrefix(prefix);
  });

  it('answers /readyz 503 while draining, sends the in-flight answer with Connection: close, closes PostgreSQL and Redis and exits 0', async () => {
    const link = await seedLink(db);
    // The drain window only has to outlast a few local requests; the test waits on log lines, not on it.
    api = await startService('api', 'tsx', {
      DATABASE_URL: db.url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '3000',
    });
    const { port } = api;
    const idle = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busy = new http.Agent({ keepAlive: true, maxSockets: 1 });

    // A keep-alive connection that is idle when the signal comes.
    expect((await get(port, '/readyz', idle)).status).toBe(200);
    // A request in flight when the signal comes: its headers are parsed (the server's 100 Continue says
    // so) and the body is not all there yet, so the API is still waiting for it.
    const body = JSON.stringify(['100000000000000001', '100000000000000002']);
    const put = http.request({
      host: '127.0.0.1',
      port,
      agent: busy,
      method: 'PUT',
      path: `/api/role-link/${link.guildId}/${link.roleId}/users`,
      headers: {
        Authorization: `Token ${link.token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Expect: '100-continue',
      },
    });
    const putAnswer = answerOf(put);
    await new Promise((resolve) => put.once('continue', resolve));
    put.write(body.slice(0, 10));

    process.kill(api.pid, 'SIGTERM');
    await api.logged(/"message":"shutting down"/);

    // The idle keep-alive socket is still served during the window, with the spec's error body, and closed after.
    const ready = await get(port, '/readyz', idle);
    expect(ready).toEqual({
      status: 503,
      connection: 'close',
      body: JSON.stringify({ statusCode: 503, message: 'Shutting down' }),
    });

    put.end(body.slice(10));
    const answer = await putAnswer;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');

    expect(await api.exited).toBe(0);
    const lines = api
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { message: string }).message);
    expect(lines).not.toContain('shutdown deadline passed; exiting');
    expect(lines.filter((m) => m.startsWith('shutdown step failed'))).toEqual([]);
    // 'stopped' is logged only after the last step (the database, after both Redis connections) ran.
    expect(lines[lines.length - 1]).toBe('stopped');
    idle.destroy();
    busy.destroy();
  });
});
