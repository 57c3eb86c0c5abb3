import http, { type RequestListener, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedisClient } from '@rolelink/queue';
import { producerConnection } from '@rolelink/queue';
import { createMetrics, memoryLogger, serve, type Serving } from '@rolelink/runtime';
import { createApi, type Api } from '../src/app';
import { startApiHarness, type ApiHarness } from '../../../test/support/api';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { listOf, seedGuild, seedLink, type SeededLink } from '../../../test/support/fixtures';

// The link pipeline (src/links/link-pipeline.ts) has two ways in: the listener main.ts serves calls it
// directly, the Express app from its first middleware. The same requests go through each, over the same
// database state, and every answer, log line and metric must match; the listener must not touch Express.

let h: ApiHarness;
let redis: RedisClient;
const prefixes: string[] = [];
beforeAll(async () => {
  h = await startApiHarness();
  redis = producerConnection(REDIS_URL, { disconnectTimeout: 50, enableAutoPipelining: true });
});
afterAll(async () => {
  redis.disconnect();
  for (const p of prefixes) await dropPrefix(p);
  await h.close();
});

/** Express's app.handle (missing from its types): what the app function calls for every request it is given. */
const spyOnExpress = (api: Api) => jest.spyOn(api.app as unknown as { handle: (...args: unknown[]) => void }, 'handle');

type Answer = { status: number; headers: [string, string][]; body: string };

function send(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: text });
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

function built(limit: number): {
  api: Api;
  lines: ReturnType<typeof memoryLogger>['lines'];
  metrics: ReturnType<typeof createMetrics>;
} {
  const { logger, lines } = memoryLogger('api', 'info');
  const metrics = createMetrics('api', { defaultMetrics: false });
  const prefix = testQueuePrefix();
  prefixes.push(prefix);
  const api = createApi({
    pool: h.db.pool,
    sync: h.sync,
    logger,
    metrics,
    rateLimit: { redis, prefix, windowMs: 60_000, perPlan: { free: limit, premium: limit } },
  });
  return { api, lines, metrics };
}

async function listen(
  listener: RequestListener,
  drainMs: number,
  serverOptions?: ServerOptions,
): Promise<{ serving: Serving; port: number }> {
  const { logger } = memoryLogger('api', 'error');
  const serving = serve(listener, {
    name: 'api',
    port: 0,
    host: '127.0.0.1',
    portVar: 'API_PORT',
    logger,
    drainMs,
    serverOptions,
  });
  if (!serving.server.listening) await new Promise((resolve) => serving.server.once('listening', resolve));
  return { serving, port: (serving.server.address() as AddressInfo).port };
}

const GUILD = '300000000000000001';
const ROLE = '300000000000000002';
const OTHER_GUILD = '300000000000000003';
const U1 = '10000000000000000001'; // 20 digits, above 2^63
const U2 = '700000000000000002';

/** Links of the same ids on both sides: the database is emptied (identities restarted) and seeded alike. */
async function seedSide(): Promise<SeededLink> {
  await h.reset();
  await seedGuild(h.db, { id: GUILD, plan: 'free' });
  await seedGuild(h.db, { id: OTHER_GUILD, plan: 'free' });
  return seedLink(h.db, { guildId: GUILD, roleId: ROLE });
}

type Run = { answers: Answer[]; log: object[]; metrics: string; expressCalls: number[]; list: string[] };

/**
 * The sequence of the comparison; `expressCalls[i]` counts the Express app's calls after request i.
 * `classes`: served as main.ts serves it, with createApi's request and response classes (no prototype swap).
 */
async function runSequence(listener: (api: Api) => RequestListener, classes = false): Promise<Run> {
  const link = await seedSide();
  // 10 counted requests (those that pass authentication); the 11th is rate limited.
  const { api, lines, metrics } = built(10);
  const handle = spyOnExpress(api);
  const { serving, port } = await listen(listener(api), 5_000, classes ? api.serverOptions : undefined);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const userPath = (u: string, guild = GUILD) => `/api/role-link/${guild}/${ROLE}/users/${u}`;
  const token = { Authorization: `Token ${link.token}` };
  const answers: Answer[] = [];
  const expressCalls: number[] = [];
  let n = 0;
  const call = async (method: string, path: string, headers: Record<string, string> = token) => {
    answers.push(await send(port, agent, method, path, { 'X-Request-Id': `req-${++n}`, ...headers }));
    expressCalls.push(handle.mock.calls.length);
  };

  await call('POST', userPath(U1)); // added
  await call('POST', userPath(U1)); // already there
  await call('POST', userPath('0100000000000009999')); // leading zero: 400
  await call('POST', userPath(U2), { Authorization: 'Token rl_not_a_real_token' }); // 403 invalid token
  await call('DELETE', userPath(U2), {}); // 401 no header
  await call('POST', userPath(U2), { Authorization: `Bearer ${link.token}` }); // 401 scheme
  await call('POST', userPath(U2, OTHER_GUILD)); // 404: no link there
  await call('POST', userPath(U2, '0123')); // 400 guild id
  await call('DELETE', userPath(U1)); // removed
  await call('DELETE', userPath(U1)); // not there
  await call('POST', userPath(U2), { ...token, 'Idempotency-Key': 'key-1' }); // added, recorded
  await call('POST', userPath(U2), { ...token, 'Idempotency-Key': 'key-1' }); // replayed
  await call('DELETE', userPath(U2), { ...token, 'Idempotency-Key': 'bad key' }); // 400 key
  await call('POST', userPath('12345')); // 400 too short
  // While draining: served, each answer closing its connection; the 11th counted request is refused.
  const drained = serving.drain();
  await call('POST', userPath(U1)); // added, Connection: close
  await call('POST', userPath(U2)); // 429
  await drained;
  agent.destroy();
  handle.mockRestore();
  const log = lines
    .filter((l) => l.message === 'http request')
    .map(({ duration_ms: _d, timestamp: _t, ...rest }) => rest);
  const counters = (await metrics.registry.getSingleMetricAsString('http_requests_total'))
    .split('\n')
    .sort()
    .join('\n');
  return { answers, log, metrics: counters, expressCalls, list: await listOf(h.db, link.linkId) };
}

/** What legitimately differs between two runs: the Date header and the rate limit's seconds to reset. */
function comparable(a: Answer): Answer {
  const seconds = (v: string) => v.replace(/t=\d+/, 't=N').replace(/Retry after \d+ s/, 'Retry after N s');
  return {
    status: a.status,
    headers: a.headers
      .filter(([k]) => k.toLowerCase() !== 'date')
      .map(([k, v]) => [k, k.toLowerCase() === 'retry-after' ? 'N' : seconds(v)]),
    body: seconds(a.body),
  };
}

describe('the link pipeline, from the listener and from Express', () => {
  it('answers, logs and counts every case byte for byte as the Express route does', async () => {
    const fast = await runSequence((api) => api.listener, true);
    // On a server without those classes (supertest's), the listener hands every request to Express.
    const swapped = await runSequence((api) => api.listener);
    const viaExpress = await runSequence((api) => api.app);

    // The listener served them all without Express; on Node's own classes Express took each one.
    expect(fast.expressCalls.every((c) => c === 0)).toBe(true);
    expect(swapped.expressCalls).toEqual(swapped.answers.map((_a, i) => i + 1));
    expect(viaExpress.expressCalls).toEqual(viaExpress.answers.map((_a, i) => i + 1));
    expect(swapped.answers.map(comparable)).toEqual(viaExpress.answers.map(comparable));
    expect([swapped.log, swapped.metrics, swapped.list]).toEqual([viaExpress.log, viaExpress.metrics, viaExpress.list]);

    expect(fast.answers.map((a) => a.status)).toEqual([
      200, 200, 400, 403, 401, 401, 404, 400, 200, 200, 200, 200, 400, 400, 200, 429,
    ]);
    expect(fast.answers.map(comparable)).toEqual(viaExpress.answers.map(comparable));
    expect(fast.log).toEqual(viaExpress.log);
    expect(fast.metrics).toEqual(viaExpress.metrics);
    expect(fast.list).toEqual(viaExpress.list);
    expect(fast.list).toEqual([U2, U1].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));

    // Spot checks that the compared answers are the ones meant.
    const header = (a: Answer, name: string) => a.headers.find(([k]) => k.toLowerCase() === name)?.[1];
    const [added, , badId, , , , , , , , recorded, replayed, , , drainedAnswer, limited] = fast.answers;
    expect(added!.body).toBe('{"data":{"added":true}}');
    expect(header(added!, 'content-type')).toBe('application/json; charset=utf-8');
    expect(header(added!, 'etag')).toBe('"1.1"');
    expect(header(added!, 'x-request-id')).toBe('req-1');
    expect(header(added!, 'ratelimit')).toMatch(/^"free"; r=9; t=\d+$/);
    expect(JSON.parse(badId!.body)).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: ['params.userId: "0100000000000009999" has a leading zero; a snowflake never starts with 0'],
    });
    expect(header(replayed!, 'idempotent-replayed')).toBe('true');
    expect(replayed!.body).toBe(recorded!.body);
    expect(header(drainedAnswer!, 'connection')).toBe('close');
    expect(header(limited!, 'retry-after')).toBeDefined();
    expect(JSON.parse(limited!.body)).toMatchObject({ statusCode: 429 });
    expect(fast.log[0]).toEqual(
      expect.objectContaining({
        method: 'POST',
        route: '/api/role-link/:guildId/:roleId/users/:userId',
        status: 200,
        linkId: '1',
        requestId: 'req-1',
      }),
    );
    expect(fast.log[3]).toEqual(expect.objectContaining({ route: '/api/role-link/:guildId/:roleId/*', status: 403 }));
  });

  it('serves every /api/role-link request without Express, and leaves every other path to it', async () => {
    const link = await seedSide();
    const { api } = built(100);
    const handle = spyOnExpress(api);
    const { serving, port } = await listen(api.listener, 0, api.serverOptions);
    const agent = new http.Agent({ keepAlive: false });
    const path = `/api/role-link/${GUILD}/${ROLE}/users/${U1}`;
    const token = { Authorization: `Token ${link.token}` };
    const served = async (
      express: boolean,
      method: string,
      p: string,
      headers: Record<string, string> = token,
      body?: string,
    ) => {
      const before = handle.mock.calls.length;
      const answer = await send(port, agent, method, p, headers, body);
      expect([method, p, handle.mock.calls.length]).toEqual([method, p, before + (express ? 1 : 0)]);
      return answer;
    };
    const json = { ...token, 'Content-Type': 'application/json' };
    expect((await served(false, 'POST', path, { ...json, 'Content-Length': '2' }, '{}')).status).toBe(200);
    expect((await served(false, 'POST', path, { ...json, 'Transfer-Encoding': 'chunked' }, '{}')).status).toBe(200);
    expect((await served(false, 'POST', `${path}?dry_run=true`)).status).toBe(200);
    expect((await served(false, 'POST', `${path}/`)).status).toBe(200);
    expect((await served(false, 'POST', path.replace('/users/', '/Users/'))).status).toBe(200);
    expect((await served(false, 'POST', path.replace('/api/role-link/', '/API/Role-Link/'))).status).toBe(200);
    expect((await served(false, 'HEAD', path)).status).toBe(200);
    expect((await served(false, 'GET', path)).body).toBe('{"data":{"exists":true}}');
    expect((await served(false, 'GET', `/api/role-link/${GUILD}/${ROLE}/users`)).status).toBe(200);
    expect((await served(false, 'POST', `/api/role-link/${GUILD}/${ROLE}/nope`)).status).toBe(404);
    // An OPTIONS request of a known path is answered with its methods, as Express's router answers it.
    const options = await served(false, 'OPTIONS', path);
    expect([options.status, options.body]).toEqual([200, 'DELETE, GET, HEAD, POST']);
    // Not in the link mount: Express's.
    expect((await served(true, 'GET', `/api/role-link/${GUILD}`)).status).toBe(404);
    expect((await served(true, 'GET', '/healthz')).status).toBe(200);
    expect((await served(true, 'GET', '/openapi.json')).status).toBe(200);
    await serving.drain();
    handle.mockRestore();
  });

  it('answers a path parameter that is not valid percent-encoding 400 in the spec shape (Express answered 500)', async () => {
    const link = await seedSide();
    const { api } = built(100);
    const { serving, port } = await listen(api.listener, 0, api.serverOptions);
    const agent = new http.Agent({ keepAlive: false });
    const token = { Authorization: `Token ${link.token}` };
    const user = await send(port, agent, 'POST', `/api/role-link/${GUILD}/${ROLE}/users/%E0%A4%A`, token);
    expect([user.status, JSON.parse(user.body)]).toEqual([
      400,
      {
        statusCode: 400,
        message: 'Validation error',
        details: ['params.userId: must be a 17 to 20 digit snowflake string'],
      },
    ]);
    const guild = await send(port, agent, 'GET', `/api/role-link/%E0%A4%A/${ROLE}/users`, token);
    expect([guild.status, JSON.parse(guild.body)]).toEqual([
      400,
      { statusCode: 400, message: 'Validation error', details: ['params.guildId: must be a numeric string'] },
    ]);
    // Still after the header checks (the order of docs/api.md).
    expect((await send(port, agent, 'GET', `/api/role-link/%E0%A4%A/${ROLE}/users`, {})).status).toBe(401);
    await serving.drain();
  });
});
