import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import request from 'supertest';
import { createLink, deleteLink, type AdminDeps } from '@rolelink/admin';
import { SyncNotifier } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { createApi } from '../../services/api/src/app';
import { startHarness, TEST_KEY, type Harness } from '../../services/plugin-broker/test/support/harness';
import { json } from '../../services/plugin-broker/test/support/test-plugin';
import { listOf, seedGuild, seedLink, snowflake, userIds } from '../support/fixtures';
import { report } from './figures';
import {
  bodyOf,
  type ApiErrorBody,
  type ChunkAcceptedBody,
  type ShrinkBody,
  type UploadCreatedBody,
} from '../support/api';

// Token hygiene: a link's raw API token is shown once, to its admin, and after that exists only
// at the plugin. This scenario drives a link through its whole life with every component logging at
// debug level — creation through the broker's register call, API requests with the token in every wrong
// place a client might put it, configuration calls, a held change, deletion — and then looks for the raw
// token in every log line, every Redis key and job payload, and every column of every table.
// Token comparison: the API never compares token strings. It looks the link up by the SHA-256 of the
// token (an indexed equality on a hash the caller cannot steer byte by byte), so there is no early-exit
// comparison to time.

const apiLog = memoryLogger('api', 'debug');
const brokerLog = memoryLogger('plugin-broker', 'debug');
let h: Harness;
let sync: SyncNotifier;
let app: RequestListener;
let deps: AdminDeps;
const tokens: string[] = [];

beforeAll(async () => {
  // Generous time limits: this scenario is about where the token goes, not about how fast.
  h = await startHarness({
    allowHosts: ['127.0.0.1'],
    logger: brokerLog.logger,
    timeouts: { register: 5000, fetchConfig: 5000, submitConfig: 5000, deleteConfig: 5000, health: 5000 },
    deadlines: { register: 20_000, fetchConfig: 20_000, submitConfig: 20_000 },
  });
  sync = new SyncNotifier(h.redis, h.prefix, apiLog.logger);
  app = createApi({ pool: h.db.pool, sync, logger: apiLog.logger }).listener;
  deps = {
    db: h.db,
    secretKey: () => TEST_KEY,
    allowPrivatePluginHosts: ['127.0.0.1'],
    plugin: { register: (id) => h.client.register(id), deleteConfig: (input) => h.pluginJobs.deleteConfig(input) },
    requestSync: (id) => sync.notify(id),
  };
  // The plugin keeps every token it is given, as a real plugin would.
  h.plugin.on('POST /register', (req, res) => {
    tokens.push(String(req.headers.authorization).replace(/^Token /, ''));
    json(res, 200, {});
  });
  h.plugin.on('GET /config', (_req, res) =>
    json(res, 200, {
      version: 1,
      name: 'Levels',
      sections: [{ title: 'Main', fields: [{ type: 'secret', key: 'api_key', label: 'API key' }] }],
      values: {},
    }),
  );
  h.plugin.on('POST /config', (_req, res) => json(res, 200, { success: true, message: 'Saved' }));
  h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
  h.plugin.on('DELETE /config', (_req, res) => json(res, 200, {}));
});
afterAll(async () => {
  await sync?.close();
  await h?.close();
});

/** Every place a token could hide, as text: Redis values of every type, and every column of every table. */
async function redisText(): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await h.redis.scan(cursor, 'MATCH', `${h.prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      parts.push(k);
      const type = await h.redis.type(k);
      if (type === 'string') parts.push((await h.redis.get(k)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await h.redis.hgetall(k)));
      else if (type === 'list') parts.push(JSON.stringify(await h.redis.lrange(k, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await h.redis.smembers(k)));
      else if (type === 'zset') parts.push(JSON.stringify(await h.redis.zrange(k, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await h.redis.xrange(k, '-', '+')));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

async function databaseText(): Promise<{ text: string; columns: number }> {
  const { rows: cols } = await h.db.pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const parts: string[] = [];
  for (const c of cols) {
    // bytea as both hex and the bytes read as text: a token stored raw in a binary column shows in the second.
    const bytes = c.data_type === 'bytea' ? `encode("${c.column_name}", 'escape')` : 'NULL';
    const { rows } = await h.db.pool.query<{ v: string | null; b: string | null }>(
      `SELECT "${c.column_name}"::text AS v, ${bytes} AS b FROM "${c.table_name}"`,
    );
    for (const r of rows) parts.push(r.v ?? '', r.b ?? '');
  }
  return { text: parts.join('\n'), columns: cols.length };
}

const occurrences = (haystack: string) => tokens.reduce((n, t) => n + haystack.split(t).length - 1, 0);

describe('token hygiene: no raw token in logs, Redis or the database', () => {
  let linkTwo: { guildId: string; roleId: string };
  let deleted: Promise<unknown> = Promise.resolve();

  it('drives links through their life with the token in every wrong place a client might put it', async () => {
    const guildId = await seedGuild(h.db, { plan: 'premium' });
    const one = { guildId, roleId: snowflake() };
    linkTwo = { guildId, roleId: snowflake() };
    const created = await createLink(deps, { ...one, pluginUrl: h.plugin.url }).catch((err: unknown) => {
      throw new Error(
        `${String(err)}; broker said: ${brokerLog.lines
          .filter((l) => l.level !== 'debug')
          .map((l) => l.message)
          .join(' | ')}`,
      );
    });
    await createLink(deps, { ...linkTwo, pluginUrl: h.plugin.url });
    expect(tokens).toHaveLength(2);
    const [token, other] = tokens as [string, string];
    const base = `/api/role-link/${one.guildId}/${one.roleId}`;

    await request(app).put(`${base}/users`).set('Authorization', `Token ${token}`).send(userIds(40)).expect(200);
    await request(app)
      .post(`${base}/users/${userIds(1, 900000000000000000n)[0]}`)
      .set('Authorization', `Token ${token}`)
      .expect(200);
    // A shrink that is held, and its confirmation.
    const held = await request(app)
      .put(`${base}/users`)
      .set('Authorization', `Token ${token}`)
      .send(userIds(5))
      .expect(409);
    await request(app)
      .put(`${base}/users`)
      .set('Authorization', `Token ${token}`)
      .set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id)
      .send(userIds(5))
      .expect(200);
    // Wrong places: another scheme, a query string, a mangled token, another link's path, the body, a header of its own.
    await request(app).get(`${base}/users`).set('Authorization', `Bearer ${token}`).expect(401);
    await request(app).get(`${base}/users?token=${token}`).expect(401);
    await request(app).get(`${base}/users`).set('Authorization', `Token ${token}x`).expect(403);
    await request(app)
      .get(`/api/role-link/${linkTwo.guildId}/${linkTwo.roleId}/users`)
      .set('Authorization', `Token ${token}`)
      .expect(403);
    await request(app).put(`${base}/users`).set('Authorization', `Token ${token}`).send([token]).expect(400);
    await request(app).get(`${base}/users/${token}`).set('Authorization', `Token ${token}`).expect(400);
    await request(app).get(`/nothing-here/${token}`).set('Authorization', `Token ${other}`).expect(404);

    await h.client.fetchConfig(created.link_id, { refresh: true });
    await h.client.submitConfig(one, { api_key: 'plugin-secret' });
    deleted = h.completed('delete-config');
    await deleteLink(deps, one);
  });

  it.each(['free', 'premium'] as const)(
    "never lets one link's token read or write another link's list, on any route (%s plan)",
    async (plan) => {
      const guildId = await seedGuild(h.db, { plan });
      const mine = await seedLink(h.db, { guildId });
      const theirs = await seedLink(h.db, { guildId });
      tokens.push(mine.token, theirs.token); // scanned for at the end too
      const list = userIds(30);
      await request(app)
        .put(`/api/role-link/${theirs.guildId}/${theirs.roleId}/users`)
        .set('Authorization', `Token ${theirs.token}`)
        .send(list)
        .expect(200);
      // Chunked uploads are premium-only (spec 8): on free, the session routes are tried with an unknown id.
      const id =
        plan === 'premium'
          ? bodyOf<UploadCreatedBody>(
              await request(app)
                .post(`/api/role-link/${theirs.guildId}/${theirs.roleId}/users/upload`)
                .set('Authorization', `Token ${theirs.token}`)
                .expect(200),
            ).data.upload_id
          : randomUUID();
      const there = `/api/role-link/${theirs.guildId}/${theirs.roleId}`;
      const routes: [string, string, unknown?][] = [
        ['get', '/users'],
        ['put', '/users', userIds(1)],
        ['post', '/users/upload'],
        ['post', `/users/upload/${id}/chunk`, userIds(2)],
        ['post', `/users/upload/${id}/commit`],
        ['delete', `/users/upload/${id}`],
        ['get', `/users/${list[0]}`],
        ['post', `/users/${userIds(1, 800000000000000000n)[0]}`],
        ['delete', `/users/${list[0]}`],
      ];
      for (const [method, path, body] of routes) {
        const call = (request(app) as unknown as Record<string, (p: string) => request.Test>)[method]!(
          there + path,
        ).set('Authorization', `Token ${mine.token}`);
        const res = await (body === undefined ? call : call.send(body as object));
        expect([method, path, res.status, bodyOf<ApiErrorBody>(res).message]).toEqual([
          method,
          path,
          403,
          'Invalid or revoked token',
        ]);
      }
      expect(await listOf(h.db, theirs.linkId)).toEqual(list);
      if (plan === 'free') return;
      // The session the other link opened is untouched too: still open, with none of the refused chunk in it.
      const chunk = await request(app)
        .post(`${there}/users/upload/${id}/chunk`)
        .set('Authorization', `Token ${theirs.token}`)
        .send(userIds(3))
        .expect(200);
      expect(bodyOf<ChunkAcceptedBody>(chunk).data).toEqual({ chunks: 1, users: 3 });
    },
  );

  it('finds the tokens where they belong (control: the scan can see a token)', () => {
    expect(occurrences(JSON.stringify(h.plugin.requests.map((r) => r.headers)))).toBeGreaterThan(0);
  });

  it('finds none in any log line, Redis key or job payload, or database column', async () => {
    // Let the delete-config job run, so its payload and outcome are part of what is scanned.
    await deleted;
    const logs = [...apiLog.lines, ...brokerLog.lines].map((l) => JSON.stringify(l)).join('\n');
    const redis = await redisText();
    const database = await databaseText();
    const found = { logs: occurrences(logs), redis: occurrences(redis), database: occurrences(database.text) };
    report([
      {
        scenario: 'token-hygiene',
        name: 'log lines scanned (api and broker at debug)',
        value: apiLog.lines.length + brokerLog.lines.length,
      },
      { scenario: 'token-hygiene', name: 'database columns scanned', value: database.columns },
      { scenario: 'token-hygiene', name: 'raw tokens in logs', value: found.logs, goal: '0', met: found.logs === 0 },
      {
        scenario: 'token-hygiene',
        name: 'raw tokens in Redis keys and job payloads',
        value: found.redis,
        goal: '0',
        met: found.redis === 0,
      },
      {
        scenario: 'token-hygiene',
        name: 'raw tokens in database columns',
        value: found.database,
        goal: '0',
        met: found.database === 0,
      },
    ]);
    expect(apiLog.lines.length).toBeGreaterThan(10);
    expect(database.columns).toBeGreaterThan(20);
    expect(found).toEqual({ logs: 0, redis: 0, database: 0 });
    // The second link is still in the database, so its row was scanned (the first was deleted).
    expect(database.text).toContain(linkTwo.roleId);
  });
});
