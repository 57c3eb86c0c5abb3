import request from 'supertest';
import { readJournal } from '@rolelink/db/list';
import { silentLogger } from '@rolelink/runtime';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type UsersListBody,
  uploadChunks,
} from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { ExpirySweeper } from '../src/expiry-sweeper';

// Memberships that expire on their own through the public API, and the sweeper that
// removes them. Expiry is reached by moving the sweeper's clock forward, never by waiting.

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const post = (l: SeededLink, id: string, body?: unknown) => {
  const r = request(h.app)
    .post(`${base(l)}/${id}`)
    .set(auth(l.token));
  return body === undefined ? r : r.set('Content-Type', 'application/json').send(JSON.stringify(body));
};
const put = (l: SeededLink, body: unknown) =>
  request(h.app).put(base(l)).set(auth(l.token)).set('Content-Type', 'application/json').send(JSON.stringify(body));
const expiries = async (l: SeededLink) =>
  bodyOf<UsersListBody>(
    await request(h.app)
      .get(`${base(l)}?include=expiry`)
      .set(auth(l.token))
      .expect(200),
  ).meta.expiries;
const sweeperAt = (at: Date) => new ExpirySweeper({ pool: h.db.pool, sync: h.sync, logger: silentLogger() }, () => at);

describe('POST /users/:userId with an expiry', () => {
  it('keeps the empty-body call as it was: 200 {"data":{"added":true}}, permanent', async () => {
    const link = await seedLink(h.db);
    const [id] = userIds(1);
    const res = await post(link, id!).expect(200);
    expect(res.text).toBe('{"data":{"added":true}}');
    const empty = await post(link, userIds(1, 200000000000000000n)[0]!, {}).expect(200);
    expect(empty.text).toBe('{"data":{"added":true}}');
    expect(await expiries(link)).toEqual({});
    // Without include, meta has no expiries key at all.
    const plain = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(Object.keys(bodyOf<UsersListBody>(plain).meta)).not.toContain('expiries');
  });

  it.each([
    [
      'both fields',
      { expires_at: '2034-01-01T00:00:00Z', ttl_seconds: 60 },
      'ttl_seconds: send either expires_at or ttl_seconds, not both',
    ],
    ['a past time', { expires_at: '2020-01-01T00:00:00Z' }, 'expires_at: must be in the future'],
    [
      'a time without zone',
      { expires_at: '2034-01-01T00:00:00' },
      'expires_at: must be an RFC 3339 time with a time zone, e.g. 2026-12-24T18:00:00Z',
    ],
    [
      'an impossible date',
      { expires_at: '2034-02-31T00:00:00Z' },
      'expires_at: must be an RFC 3339 time with a time zone, e.g. 2026-12-24T18:00:00Z',
    ],
    ['a time 20 years ahead', { expires_at: '2046-12-01T00:00:00Z' }, 'expires_at: must be at most 10 years ahead'],
    ['a fractional ttl', { ttl_seconds: 1.5 }, 'ttl_seconds: must be a whole number of seconds'],
    ['a ttl as a string', { ttl_seconds: '60' }, 'ttl_seconds: must be a whole number of seconds'],
    ['a zero ttl', { ttl_seconds: 0 }, 'ttl_seconds: must be at least 1'],
    ['an absurd ttl', { ttl_seconds: 1e12 }, 'ttl_seconds: must be at most 316224000 (10 years)'],
    [
      'an unknown field',
      { expiresAt: '2034-01-01T00:00:00Z' },
      'expiresAt: unknown field (expected expires_at or ttl_seconds)',
    ],
    ['an array', [60], 'body: must be a JSON object: {"expires_at": "<RFC 3339 time>"} or {"ttl_seconds": <seconds>}'],
  ])('refuses %s with a 400 naming the field, and adds nothing', async (_what, body, detail) => {
    const link = await seedLink(h.db);
    const res = await post(link, userIds(1)[0]!, body);
    expect(res.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(res)).toMatchObject({
      statusCode: 400,
      message: 'Validation error',
      details: [detail],
    });
    expect(await listOf(h.db, link.linkId)).toEqual([]);
  });

  it('stores the expiry, shows it in GET /users meta, and a re-POST extends it or (without one) makes the member permanent', async () => {
    const link = await seedLink(h.db);
    const [a, b] = userIds(2);
    const at = '2034-06-01T10:00:00.000Z';
    expect((await post(link, a!, { expires_at: '2034-06-01T12:00:00+02:00' }).expect(200)).body).toEqual({
      data: { added: true },
    });
    const before = Date.now();
    await post(link, b!, { ttl_seconds: 3600 }).expect(200);
    const meta = await expiries(link);
    expect(meta![a!]).toBe(at);
    const ttlAt = Date.parse(meta![b!]!);
    expect(ttlAt).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(ttlAt).toBeLessThanOrEqual(Date.now() + 3_600_000);

    expect((await post(link, a!, { ttl_seconds: 7200 }).expect(200)).body).toEqual({ data: { added: false } });
    expect(Date.parse((await expiries(link))![a!]!)).toBeGreaterThan(Date.now() + 7_000_000);
    await post(link, a!).expect(200);
    expect(Object.keys((await expiries(link))!)).toEqual([b]);
  });
});

describe('PUT /users and chunks with per-user expiries', () => {
  it('accepts ID strings and {"id", "expires_at" | "ttl_seconds"} items in one body; a plain PUT makes everyone permanent', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const [a, b, c] = userIds(3);
    await put(link, [a, { id: b, expires_at: '2034-01-01T00:00:00Z' }, { id: c, ttl_seconds: 600 }]).expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual([a, b, c]);
    const meta = await expiries(link);
    expect(Object.keys(meta!)).toEqual([b, c]);
    expect(meta![b!]).toBe('2034-01-01T00:00:00.000Z');
    await put(link, [a, b, c]).expect(200);
    expect(await expiries(link)).toEqual({});
  });

  it('refuses a bad item with a 400 naming its place', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const [a, b] = userIds(2);
    const cases: [unknown[], string][] = [
      [[a, { id: b, expires_at: '2001-01-01T00:00:00Z' }], 'body.1.expires_at: must be in the future'],
      [[a, { id: b, ttl_seconds: -5 }], 'body.1.ttl_seconds: must be at least 1'],
      [[{ id: '12', ttl_seconds: 5 }], 'body.0.id: must be a 17 to 20 digit snowflake string'],
      [[{ id: a, ttl: 5 }], 'body.0.ttl: unknown field (expected expires_at or ttl_seconds)'],
    ];
    for (const [body, detail] of cases) {
      const res = await put(link, body);
      expect(res.status).toBe(400);
      expect(bodyOf<ApiErrorBody>(res).details).toEqual([detail]);
    }
    expect(await listOf(h.db, link.linkId)).toEqual([]);
  });

  it('stages a chunk’s expiries and applies them at commit', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const [a, b] = userIds(2);
    await uploadChunks(h.app, link, [[a, { id: b, expires_at: '2033-03-04T05:06:07.089Z' }]], { commit: true });
    expect(await expiries(link)).toEqual({ [b!]: '2033-03-04T05:06:07.089Z' });
  });
});

describe('the expiry sweeper', () => {
  it("removes due members as a DELETE would: list, counter, journal, version, a sync request, and the plugin's member.expired event with them", async () => {
    const link = await seedLink(h.db);
    await subscribeLinkEvents(h.db.pool, link.linkId, ['member.expired']);
    const [a, b, c] = userIds(3);
    await post(link, a!, { ttl_seconds: 60 }).expect(200);
    await post(link, b!, { ttl_seconds: 7200 }).expect(200);
    await post(link, c!).expect(200);
    const { rows } = await h.db.pool.query<{ seq: string; version: string }>(
      'SELECT sync_wanted_seq::text AS seq, list_version::text AS version FROM role_link WHERE id = $1',
      [link.linkId],
    );
    await h.syncQueue.obliterate({ force: true });
    const at = new Date(Date.now() + 120_000);
    expect(await sweeperAt(at).sweepOnce()).toBe(1);
    expect(await listOf(h.db, link.linkId)).toEqual([b, c]);
    // Recorded in removeExpired's transaction (db list-expiry.repo.ts), not by the sweeper after it.
    const events = await h.db.pool.query<{ kind: string; payload: unknown }>(
      'SELECT kind, payload FROM plugin_event WHERE link_id = $1 ORDER BY seq',
      [link.linkId],
    );
    expect(events.rows).toEqual([{ kind: 'member.expired', payload: { user_id: a, expired_at: at.toISOString() } }]);
    const journal = await readJournal(h.db.pool, link.linkId, BigInt(rows[0]!.seq));
    expect(journal.entries.map((e) => [e.userId, e.op])).toEqual([[a, 'remove']]);
    const after = await request(h.app)
      .get(`${base(link)}?include=expiry`)
      .set(auth(link.token))
      .expect(200);
    expect(bodyOf<UsersListBody>(after).meta.user_count).toBe(2);
    expect(after.headers.etag).not.toContain(`"${rows[0]!.version}"`);
    const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
    expect(jobs.map((j) => (j.data as { linkId: string }).linkId)).toEqual([link.linkId]);
    // Nothing more is due at that time; b is removed once its own time comes.
    expect(await sweeperAt(new Date(Date.now() + 120_000)).sweepOnce()).toBe(0);
    expect(await sweeperAt(new Date(Date.now() + 8_000_000)).sweepOnce()).toBe(1);
    expect(await listOf(h.db, link.linkId)).toEqual([c]);
  });

  it('two sweepers over many links remove every due member exactly once', async () => {
    const links = await Promise.all([
      seedLink(h.db, { plan: 'premium' }),
      seedLink(h.db, { plan: 'premium' }),
      seedLink(h.db, { plan: 'premium' }),
    ]);
    const ids = userIds(1_500);
    for (const l of links)
      await put(
        l,
        ids.map((id, i) => (i % 3 === 0 ? id : { id, ttl_seconds: 60 })),
      ).expect(200);
    const at = new Date(Date.now() + 120_000);
    const [one, two] = await Promise.all([sweeperAt(at).sweepOnce(), sweeperAt(at).sweepOnce()]);
    expect(one + two).toBe(3 * 1_000);
    for (const l of links) {
      expect(await listOf(h.db, l.linkId)).toEqual(ids.filter((_, i) => i % 3 === 0));
      const count = await h.db.pool.query<{ n: number }>('SELECT user_count AS n FROM role_link WHERE id = $1', [
        l.linkId,
      ]);
      expect(count.rows[0]!.n).toBe(500);
    }
  });
});
