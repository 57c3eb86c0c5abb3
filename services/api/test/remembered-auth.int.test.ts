import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedisClient } from '@rolelink/queue';
import { hashToken, generateToken } from '@rolelink/domain';
import { producerConnection } from '@rolelink/queue';
import { memoryLogger, serve, type Serving } from '@rolelink/runtime';
import { createApi } from '../src/app';
import { startApiHarness, type ApiHarness } from '../../../test/support/api';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { listOf, seedGuild, seedLink, type SeededLink } from '../../../test/support/fixtures';

// A POST or DELETE /users/:userId may be let through on the link as last read for its token, whatever its
// headers, its write re-checking token, enabled, plan, slots and rank in its own statement (the link
// pipeline's LinkAuth, src/links/link-auth.ts). Every answer must still rest on a check made after the
// request arrived: each case below changes the link between a request that was answered and the next, and
// the next must see the change.

let h: ApiHarness;
let redis: RedisClient;
const prefixes: string[] = [];
beforeAll(async () => {
  h = await startApiHarness();
  redis = producerConnection(REDIS_URL, { disconnectTimeout: 50 });
});
afterAll(async () => {
  redis.disconnect();
  for (const p of prefixes) await dropPrefix(p);
  await h.close();
});

type Answer = { status: number; body: { data?: unknown; message?: string } };

const INVALID = 'Invalid or revoked token';
const DISABLED = 'This role link is disabled';
const PAUSED = 'This role link is paused — integration slots quota exceeded';
type Server = { serving: Serving; port: number; lines: ReturnType<typeof memoryLogger>['lines'] };

async function start(rateLimit?: number): Promise<Server> {
  const { logger, lines } = memoryLogger('api', 'info');
  const prefix = testQueuePrefix();
  prefixes.push(prefix);
  const api = createApi({
    pool: h.db.pool,
    sync: h.sync,
    logger,
    ...(rateLimit
      ? { rateLimit: { redis, prefix, windowMs: 60_000, perPlan: { free: rateLimit, premium: rateLimit } } }
      : {}),
  });
  const serving = serve(api.listener, {
    name: 'api',
    port: 0,
    host: '127.0.0.1',
    portVar: 'API_PORT',
    logger,
    drainMs: 0,
    serverOptions: api.serverOptions,
  });
  if (!serving.server.listening) await new Promise((resolve) => serving.server.once('listening', resolve));
  return { serving, port: (serving.server.address() as AddressInfo).port, lines };
}

function send(
  port: number,
  method: string,
  link: SeededLink,
  userId: string,
  token = link.token,
  extra: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/api/role-link/${link.guildId}/${link.roleId}/users/${userId}`,
        headers: { Authorization: `Token ${token}`, ...extra.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
      },
    );
    req.once('error', reject);
    req.end(extra.body);
  });
}

// Content-Length given: Node's client sends a DELETE's body without one, which the server reads as the next request.
const JSON_BODY = (body: string) => ({
  headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
  body,
});
/** The request log's line of the last answered request. */
const lastLine = (server: Server) => server.lines.filter((l) => l.message === 'http request').at(-1)!;

const U = (n: number) => `71000000000000000${n.toString().padStart(2, '0')}`;

describe('remembered authentication of single-user writes', () => {
  let server: Server;
  beforeEach(async () => {
    await h.reset();
  });
  afterEach(async () => {
    await server.serving.drain();
  });

  it('refuses the next write at once when the token is reset, and writes nothing', async () => {
    server = await start();
    const link = await seedLink(h.db, { plan: 'premium' });
    expect((await send(server.port, 'POST', link, U(1))).status).toBe(200); // read, remembered
    expect((await send(server.port, 'POST', link, U(2))).status).toBe(200); // from memory, guarded
    await h.db.pool.query('UPDATE role_link SET token_hash = $2 WHERE id = $1', [
      link.linkId,
      hashToken(generateToken()),
    ]);
    const refused = await send(server.port, 'POST', link, U(3));
    expect(refused).toEqual({ status: 403, body: { statusCode: 403, message: INVALID } });
    expect((await send(server.port, 'DELETE', link, U(1))).status).toBe(403);
    expect(await listOf(h.db, link.linkId)).toEqual([U(1), U(2)]);
    // The refused request's log line names no link: it was not that link's.
    const last = server.lines.filter((l) => l.message === 'http request').at(-1)!;
    expect(last).toMatchObject({ status: 403 });
    expect(last).not.toHaveProperty('linkId');
  });

  it('refuses a disabled link and a paused one, for adds and removals alike', async () => {
    server = await start();
    const guildId = await seedGuild(h.db, { plan: 'free', paidSlots: 1 });
    await seedLink(h.db, { guildId });
    await seedLink(h.db, { guildId });
    const third = await seedLink(h.db, { guildId }); // rank 2: within free's 2 + 1 paid slot
    const other = await seedLink(h.db, { plan: 'premium' });
    expect((await send(server.port, 'POST', third, U(1))).status).toBe(200);
    expect((await send(server.port, 'POST', other, U(1))).status).toBe(200);

    await h.db.pool.query('UPDATE guild SET paid_slots = 0 WHERE id = $1', [guildId]); // third is paused now
    expect((await send(server.port, 'DELETE', third, U(1))).body.message).toBe(PAUSED);
    await h.db.pool.query('UPDATE role_link SET enabled = false WHERE id = $1', [other.linkId]);
    expect((await send(server.port, 'POST', other, U(2))).body.message).toBe(DISABLED);
    expect(await listOf(h.db, third.linkId)).toEqual([U(1)]);
    expect(await listOf(h.db, other.linkId)).toEqual([U(1)]);
  });

  it('answers a revoked token 403 where the write would have been refused earlier (bad id, rate limit)', async () => {
    server = await start(4);
    const link = await seedLink(h.db, { plan: 'premium' });
    expect((await send(server.port, 'POST', link, U(1))).status).toBe(200);
    await h.db.pool.query('UPDATE role_link SET token_hash = $2 WHERE id = $1', [
      link.linkId,
      hashToken(generateToken()),
    ]);
    // Let through on memory to the limiter (counted: 2 of 4) and the id check, then read afresh: not a 400.
    expect((await send(server.port, 'POST', link, '0123')).body.message).toBe(INVALID);
    const rotated = generateToken();
    await h.db.pool.query('UPDATE role_link SET token_hash = $2 WHERE id = $1', [link.linkId, hashToken(rotated)]);
    expect((await send(server.port, 'POST', link, U(2), rotated)).status).toBe(200); // 3 of 4
    expect((await send(server.port, 'POST', link, U(3), rotated)).status).toBe(200); // 4 of 4
    await h.db.pool.query('UPDATE role_link SET enabled = false WHERE id = $1', [link.linkId]);
    // Over the limit and disabled: the check comes first, as for a request read afresh.
    expect((await send(server.port, 'POST', link, U(4), rotated)).body.message).toBe(DISABLED);
  });

  it('writes with the new plan when the plan changed, and a deleted link is an unknown token', async () => {
    server = await start();
    const guildId = await seedGuild(h.db, { plan: 'premium' });
    const link = await seedLink(h.db, { guildId });
    expect((await send(server.port, 'POST', link, U(1))).status).toBe(200);
    await h.db.pool.query(`UPDATE guild SET plan = 'free' WHERE id = $1`, [guildId]);
    expect(await send(server.port, 'POST', link, U(2))).toEqual({ status: 200, body: { data: { added: true } } });
    await h.db.pool.query('DELETE FROM role_link WHERE id = $1', [link.linkId]);
    expect((await send(server.port, 'POST', link, U(3))).body.message).toBe(INVALID);
  });

  it('lets a POST or DELETE with a JSON body through from memory as one without, and refuses a revoked token on both', async () => {
    server = await start();
    const link = await seedLink(h.db, { plan: 'premium' });
    expect((await send(server.port, 'POST', link, U(1))).status).toBe(200); // read afresh, remembered
    expect(lastLine(server)).toMatchObject({ auth: 'fresh', linkId: link.linkId });
    expect((await send(server.port, 'POST', link, U(2), link.token, JSON_BODY('{"ttl_seconds":3600}'))).status).toBe(
      200,
    );
    expect(lastLine(server)).toMatchObject({ auth: 'remembered', linkId: link.linkId });
    expect((await send(server.port, 'POST', link, U(3))).status).toBe(200);
    expect(lastLine(server)).toMatchObject({ auth: 'remembered', linkId: link.linkId });
    expect((await send(server.port, 'DELETE', link, U(3), link.token, JSON_BODY('{}'))).status).toBe(200);
    expect(lastLine(server)).toMatchObject({ auth: 'remembered', linkId: link.linkId });

    await h.db.pool.query('UPDATE role_link SET token_hash = $2 WHERE id = $1', [
      link.linkId,
      hashToken(generateToken()),
    ]);
    const withBody = await send(server.port, 'POST', link, U(4), link.token, JSON_BODY('{"ttl_seconds":3600}'));
    expect(withBody).toEqual({ status: 403, body: { statusCode: 403, message: INVALID } });
    expect(lastLine(server)).not.toHaveProperty('linkId');
    expect(await send(server.port, 'POST', link, U(5))).toEqual({
      status: 403,
      body: { statusCode: 403, message: INVALID },
    });
    // A bad body of a revoked token: its 403 first, as for a request read afresh.
    expect((await send(server.port, 'POST', link, U(6), link.token, JSON_BODY('{"'))).body.message).toBe(INVALID);
    expect(await listOf(h.db, link.linkId)).toEqual([U(1), U(2)]);
  });

  it('reads afresh before claiming an Idempotency-Key, so a revoked token records nothing under the key', async () => {
    server = await start();
    const link = await seedLink(h.db, { plan: 'premium' });
    const key = (k: string) => ({ headers: { 'Idempotency-Key': k } });
    expect((await send(server.port, 'POST', link, U(1))).status).toBe(200);
    expect((await send(server.port, 'POST', link, U(2), link.token, key('k-2'))).status).toBe(200);
    expect(lastLine(server)).toMatchObject({ auth: 'remembered', linkId: link.linkId });
    const rotated = generateToken();
    await h.db.pool.query('UPDATE role_link SET token_hash = $2 WHERE id = $1', [link.linkId, hashToken(rotated)]);
    expect((await send(server.port, 'POST', link, U(3), link.token, key('k-3'))).body.message).toBe(INVALID);
    // The same key with the new token runs the write: no 403 was kept for it.
    expect(await send(server.port, 'POST', link, U(3), rotated, key('k-3'))).toEqual({
      status: 200,
      body: { data: { added: true } },
    });
    expect(await listOf(h.db, link.linkId)).toEqual([U(1), U(2), U(3)]);
  });
});
