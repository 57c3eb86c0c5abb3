import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { BrokerClient, BrokerUnavailableError } from '@rolelink/broker-client';
import { BrokerRoute, PluginCallMessage } from '@rolelink/contracts';
import { encryptToken } from '@rolelink/domain';
import { PluginJobs, producerConnection } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { testQueuePrefix } from '../../../test/support/redis';
import { scheduled } from '@rolelink/queue';
import { pollHealth } from '../src/health/health-poll';
import { toStored } from '@rolelink/db/client';
import { HEALTH_HISTORY_PER_PLUGIN, recordHealth } from '@rolelink/db/health';
import { rejection, startHarness, TEST_KEY, type Harness } from './support/harness';
import { json } from './support/test-plugin';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    allowHosts: ['127.0.0.1'],
    // Every name resolves to loopback: `plugin.test` plays a public name whose DNS points inside.
    resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
  });
});
afterAll(() => h.close());

/** Every string value stored under the prefix (job hashes included), to search for secrets. */
async function redisDump(prefix: string): Promise<string> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await h.redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const parts = await Promise.all(
    keys.map(async (k) => {
      const type = await h.redis.type(k);
      if (type === 'hash') return JSON.stringify(await h.redis.hgetall(k));
      if (type === 'string') return (await h.redis.get(k)) ?? '';
      if (type === 'stream') return JSON.stringify(await h.redis.xrange(k, '-', '+'));
      return '';
    }),
  );
  return parts.join('\n');
}

describe('register (spec 4.2, 3.1)', () => {
  it('posts guild_id and role_id with the link token and resolves on a 2xx', async () => {
    const link = await h.seedLink();
    h.plugin.on('POST /register', (_req, res) => res.writeHead(204).end());
    const seen = h.plugin.next('POST /register');
    await h.client.register(link.linkId);
    const req = await seen;
    expect(JSON.parse(req.body)).toEqual({
      guild_id: link.guildId,
      role_id: link.roleId,
      member_mode: 'handover',
      current_holders: 0,
    });
    expect(req.headers['authorization']).toBe(`Token ${link.token}`);
    expect(req.headers['user-agent']).toBe('Service/1.0');
    expect(req.headers['content-type']).toBe('application/json');
  });

  it("tells the plugin how many current holders a hand-over's first list will be judged against", async () => {
    const link = await h.seedLink();
    // The holders link creation records before it registers: the bot's applied record.
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome)
       SELECT $1, ${toStored('g')}, 'applied' FROM generate_series(100000000000000000, 100000000000000019) g`,
      [link.linkId],
    );
    h.plugin.on('POST /register', (_req, res) => json(res, 200, {}));
    const seen = h.plugin.next('POST /register');
    await h.client.register(link.linkId);
    expect(JSON.parse((await seen).body)).toMatchObject({ member_mode: 'handover', current_holders: 20 });
  });

  it("gives the plugin's status and the start of its body when it refuses, without control characters", async () => {
    const link = await h.seedLink();
    const long = `${'x'.repeat(400)}`;
    h.plugin.on('POST /register', (_req, res) => json(res, 403, { error: 'unknown\u001b[31m token\r\n', pad: long }));
    const err = await rejection(h.client.register(link.linkId));
    expect([err.status, err.message, err.code]).toEqual([502, PluginCallMessage.register, 'plugin_register_failed']);
    expect(err.detail).toMatch(/^plugin answered 403: \{"error":"unknown\\u001b\[31m token\\r\\n","pad":"x+…$/);
    expect(Array.from(err.detail!.replace('plugin answered 403: ', ''))).toHaveLength(300);

    h.plugin.on('POST /register', (_req, res) =>
      res.writeHead(401, { 'content-type': 'text/plain' }).end('no\u0007 \u202eway\n\tin'),
    );
    expect((await rejection(h.client.register(link.linkId))).detail).toBe('plugin answered 401: no way in');
    h.plugin.on('POST /register', (_req, res) => res.writeHead(500).end());
    expect((await rejection(h.client.register(link.linkId))).detail).toBe('plugin answered 500 with an empty body');
  });

  it("checks a newly registered plugin's health at once instead of waiting for the next poll", async () => {
    // A harness of its own: a check of the shared test plugin still running from an earlier test would absorb
    // this one (checks are deduplicated per URL) and record that plugin's earlier answer.
    const own = await startHarness({ allowHosts: ['127.0.0.1'] });
    try {
      const link = await own.seedLink();
      own.plugin.on('POST /register', (_req, res) => json(res, 200, {}));
      own.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'degraded' }));
      const checked = own.completed('health-check');
      await own.client.register(link.linkId);
      expect((await checked).returnvalue).toEqual({ status: 'degraded' });
      expect(
        await own.db.prisma.pluginHealthCheck.count({ where: { pluginUrl: link.pluginUrl, status: 'degraded' } }),
      ).toBe(1);
    } finally {
      await own.close();
    }
  });

  const failures: [string, (link: { pluginUrl: string }) => void | string][] = [
    ['a 500', () => h.plugin.on('POST /register', (_req, res) => json(res, 500, { error: 'x' }))],
    ['a 4xx', () => h.plugin.on('POST /register', (_req, res) => json(res, 401, { error: 'bad token' }))],
    ['no answer within the timeout', () => h.plugin.on('POST /register', () => undefined)],
    [
      'a redirect to loopback',
      () =>
        h.plugin.on('POST /register', (_req, res) => res.writeHead(307, { location: `${h.plugin.url}/other` }).end()),
    ],
    ['a refused connection', () => 'https://127.0.0.1:1'],
    [
      'a name resolving to a private address',
      () => {
        // The plugin would accept: only the address check can make this fail.
        h.plugin.on('POST /register', (_req, res) => json(res, 200, {}));
        return `https://plugin.test:${h.plugin.port}`;
      },
    ],
  ];
  it.each(failures)('answers 502 "Failed to register with plugin server" on %s', async (_name, arrange) => {
    const url = arrange({ pluginUrl: h.plugin.url });
    const link = await h.seedLink(typeof url === 'string' ? url : undefined);
    const err = await rejection(h.client.register(link.linkId));
    expect([err.status, err.message]).toEqual([502, PluginCallMessage.register]);
  });

  it('reaches an allow-listed name that resolves to a private address', async () => {
    const allowing = await startHarness({
      allowHosts: ['plugin.test'],
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    try {
      allowing.plugin.on('POST /register', (_req, res) => json(res, 200, {}));
      const link = await allowing.seedLink(`https://plugin.test:${allowing.plugin.port}`);
      await expect(allowing.client.register(link.linkId)).resolves.toBeUndefined();
    } finally {
      await allowing.close();
    }
  });

  it('answers 502 for a link row that does not exist', async () => {
    expect((await rejection(h.client.register('987654321'))).message).toBe(PluginCallMessage.register);
  });

  it('leaves no raw token in Redis: not in job data, results or events', async () => {
    const link = await h.seedLink();
    h.plugin.on('POST /register', (_req, res) => json(res, 200, {}));
    await h.client.register(link.linkId);
    await h.pluginJobs.deleteConfig({
      pluginUrl: 'https://127.0.0.1:1',
      guildId: link.guildId,
      roleId: link.roleId,
      tokenCiphertext: encryptToken(link.token, TEST_KEY),
    });
    const dump = await redisDump(h.prefix);
    expect(dump).toContain(link.guildId);
    expect(dump).not.toContain(link.token);
  });
});

describe('deleteConfig (spec 3.1)', () => {
  it('sends DELETE /config with the token and guild_id/role_id, from the ciphertext alone', async () => {
    h.plugin.on('DELETE /config', (_req, res) => res.writeHead(404).end());
    const seen = h.plugin.next('DELETE /config');
    const token = 'rl_' + 'a'.repeat(47);
    await h.pluginJobs.deleteConfig({
      pluginUrl: h.plugin.url,
      guildId: '11',
      roleId: '22',
      tokenCiphertext: encryptToken(token, TEST_KEY),
    });
    const req = await seen;
    expect(req.headers['authorization']).toBe(`Token ${token}`);
    expect(JSON.parse(req.body)).toEqual({ guild_id: '11', role_id: '22' });
  });

  it('never throws when Redis is down', async () => {
    const dead = producerConnection('redis://127.0.0.1:1', { retryStrategy: () => null });
    const client = new PluginJobs(dead, testQueuePrefix(), silentLogger());
    await expect(
      client.deleteConfig({ pluginUrl: h.plugin.url, guildId: '1', roleId: '2', tokenCiphertext: Buffer.alloc(40) }),
    ).resolves.toBeUndefined();
    await client.close();
    dead.disconnect();
  });
});

describe('a broker that is down or refuses the caller', () => {
  it('yields the unreachable 502s when nothing listens at the broker URL', async () => {
    // A port that was just free: the connection is refused.
    const probe = net.createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const client = new BrokerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: h.brokerToken,
      logger: silentLogger(),
    });
    const [reg, fetch, submit] = await Promise.all([
      rejection(client.register('1')),
      rejection(client.fetchConfig('1')),
      rejection(client.submitConfig({ guildId: '1', roleId: '1' }, {})),
    ]);
    expect([reg.status, reg.message]).toEqual([502, PluginCallMessage.register]);
    expect([fetch.status, fetch.message]).toEqual([502, PluginCallMessage.fetchUnreachable]);
    expect([submit.status, submit.message]).toEqual([502, PluginCallMessage.submit]);
    // The same 502 body for the dashboard; for an operator (the CLI) the broker, not the plugin, is named.
    expect(reg).toBeInstanceOf(BrokerUnavailableError);
    expect((reg as BrokerUnavailableError).forOperator().message).toBe(
      `the plugin broker did not answer at http://127.0.0.1:${port} (BROKER_URL): connect ECONNREFUSED 127.0.0.1:${port}. The plugin was not called. Is the broker running there? Otherwise set BROKER_URL to its address`,
    );
  });

  it('answers a call without the internal token 401 and never calls the plugin; the client shows the 502', async () => {
    const link = await h.seedLink();
    let calls = 0;
    h.plugin.on('POST /register', (_req, res) => {
      calls++;
      json(res, 200, {});
    });
    const bare = await fetch(`${h.brokerUrl}${BrokerRoute.register(link.linkId)}`, { method: 'POST' });
    expect(bare.status).toBe(401);
    const wrong = new BrokerClient({ baseUrl: h.brokerUrl, token: 'x'.repeat(64), logger: silentLogger() });
    const err = await rejection(wrong.register(link.linkId));
    expect([err.status, err.message, err.code]).toEqual([502, PluginCallMessage.register, 'broker_error']);
    expect((err as BrokerUnavailableError).forOperator().message).toContain(
      'it answered 401 (broker_unauthorized). The plugin was not called. BROKER_INTERNAL_TOKEN must be the broker’s own value',
    );
    expect(calls).toBe(0);
  });
});

describe('health polling (spec 2.5, 6.1)', () => {
  async function pollOnce(): Promise<void> {
    const done = h.completed('health-check');
    await pollHealth(h.ctx, h.broker.jobs);
    await done;
  }
  async function latest(pluginUrl: string) {
    return h.db.prisma.pluginHealthCheck.findFirst({ where: { pluginUrl }, orderBy: { id: 'desc' } });
  }

  beforeEach(async () => {
    await h.db.pool.query('DELETE FROM role_link; DELETE FROM plugin_health_check');
  });

  it('stores a full report, asks without Authorization, and asks a plugin once for all its links', async () => {
    const a = await h.seedLink();
    await h.seedLink();
    const report = {
      status: 'degraded',
      timestamp: '2026-11-21T10:00:00Z',
      checks: { db: { status: 'down', latency_ms: 12, message: 'slow' } },
      services: [{ name: 'steam', status: 'up' }],
    };
    h.plugin.on('GET /health', (_req, res) => json(res, 200, report));
    const before = h.plugin.requests.length;
    await pollOnce();
    const row = await latest(a.pluginUrl);
    expect(row?.status).toBe('degraded');
    expect(row?.detail).toEqual({ timestamp: report.timestamp, checks: report.checks, services: report.services });
    const asked = h.plugin.requests.slice(before).filter((r) => r.path === '/health');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers['authorization']).toBeUndefined();
  });

  it('accepts a minimal report with only status', async () => {
    const a = await h.seedLink();
    h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    await pollOnce();
    expect((await latest(a.pluginUrl))?.status).toBe('healthy');
  });

  const unreachable: [string, () => void][] = [
    ['a missing endpoint', () => h.plugin.on('GET /health', (_req, res) => json(res, 404, {}))],
    ['an invalid report', () => h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'fine' }))],
    ['no answer', () => h.plugin.on('GET /health', () => undefined)],
  ];
  it.each(unreachable)('records %s as unreachable', async (_name, arrange) => {
    const a = await h.seedLink();
    arrange();
    await pollOnce();
    expect((await latest(a.pluginUrl))?.status).toBe('unreachable');
  });

  it('keeps a bounded history per plugin and forgets plugins no link uses', async () => {
    const a = await h.seedLink();
    for (let i = 0; i < HEALTH_HISTORY_PER_PLUGIN + 5; i++)
      await recordHealth(h.db.pool, a.pluginUrl, { status: 'healthy', latencyMs: i, detail: {} }, new Date());
    expect(await h.db.prisma.pluginHealthCheck.count({ where: { pluginUrl: a.pluginUrl } })).toBe(
      HEALTH_HISTORY_PER_PLUGIN,
    );
    await recordHealth(
      h.db.pool,
      'https://gone.example.com',
      { status: 'healthy', latencyMs: 1, detail: {} },
      new Date(),
    );
    h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    await pollOnce();
    expect(await h.db.prisma.pluginHealthCheck.count({ where: { pluginUrl: 'https://gone.example.com' } })).toBe(0);
  });

  it('never lets health checks take every worker slot from a DELETE /config', async () => {
    // Two slots and three plugins whose health checks hang (8 s timeout): the DELETE must get the free
    // slot while the checks still hang, not after two of them time out.
    const small = await startHarness({ concurrency: 2, timeouts: { health: 8000 } });
    try {
      for (const path of ['', '/second', '/third']) small.plugin.on(`GET ${path}/health`, () => undefined);
      small.plugin.on('DELETE /config', (_req, res) => res.writeHead(204).end());
      const a = await small.seedLink();
      await small.seedLink(`${small.plugin.url}/second`);
      await small.seedLink(`${small.plugin.url}/third`);
      let checksDone = 0;
      small.broker.worker.on('completed', (job) => void (job.name === 'health-check' && checksDone++));
      const firstCheck = small.plugin.next('GET /health');
      await pollHealth(small.ctx, small.broker.jobs);
      await firstCheck;
      const deleted = small.plugin.next('DELETE /config');
      await small.pluginJobs.deleteConfig({
        pluginUrl: small.plugin.url,
        guildId: a.guildId,
        roleId: a.roleId,
        tokenCiphertext: encryptToken(a.token, TEST_KEY),
      });
      await deleted;
      expect(checksDone).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('runs on a BullMQ job scheduler', async () => {
    const a = await h.seedLink();
    h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'unhealthy' }));
    const done = h.completed('health-check');
    await scheduled(h.broker.jobs, 'plugin-health', 1000)!.upsert();
    try {
      await done;
      expect((await latest(a.pluginUrl))?.status).toBe('unhealthy');
    } finally {
      await h.broker.jobs.queue.removeJobScheduler('plugin-health');
    }
  });
});
