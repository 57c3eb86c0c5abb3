import { gzipSync } from 'node:zlib';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { Client } from 'pg';
import request from 'supertest';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type ShrinkBody,
  type UserCountBody,
  type UsersListBody,
} from '../../../test/support/api';
import { toStored } from '@rolelink/db/client';
import { latestHeldChange } from '@rolelink/db/list';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const put = (l: SeededLink, body: unknown) =>
  request(h.app).put(base(l)).set(auth(l.token)).set('Content-Type', 'application/json').send(JSON.stringify(body));

async function syncJobs(): Promise<string[]> {
  const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
  return jobs.map((j) => (j.data as { linkId: string }).linkId);
}

describe('PUT /users (spec 4.1 rule 2)', () => {
  it('replaces the list, removes duplicates and answers the stored count', async () => {
    const link = await seedLink(h.db);
    const ids = userIds(5);
    const res = await put(link, [...ids, ids[0], ids[1]]).expect(200);
    expect(res.body).toEqual({ data: { user_count: 5 } });
    expect(await listOf(h.db, link.linkId)).toEqual(ids);
    const again = await put(link, ids.slice(2)).expect(200);
    expect(bodyOf<UserCountBody>(again).data.user_count).toBe(3);
    expect(await listOf(h.db, link.linkId)).toEqual(ids.slice(2));
  });

  it('refuses an ID outside 17 to 20 digits and writes nothing', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(3)).expect(200);
    for (const bad of [
      ['1234'],
      ['123456789012345678901'],
      [12345678901234567168],
      ['abcdefghijklmnopqr'],
      'x',
      { a: 1 },
    ]) {
      const res = await put(link, bad);
      expect(res.status).toBe(400);
      expect(bodyOf<ApiErrorBody>(res).message).toBe('Validation error');
    }
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(3));
  });

  it('answers 413 above the per-request cap of the plan', async () => {
    const free = await seedLink(h.db, { plan: 'free' });
    const res = await put(free, userIds(10_001));
    expect(res.status).toBe(413);
    expect(bodyOf<ApiErrorBody>(res).statusCode).toBe(413);
    expect(bodyOf<ApiErrorBody>(res).message).toMatch(/at most 10,000 per PUT/);
    const premium = await seedLink(h.db, { plan: 'premium' });
    const big = await put(premium, userIds(100_001));
    expect(big.status).toBe(413);
    expect(bodyOf<ApiErrorBody>(big).message).toMatch(/chunked upload/);
    // Repeats count: the cap is on the IDs sent, though the API stores each once (StoredIdsCopy).
    const repeated = await put(free, [...userIds(10_000), userIds(1)[0]!]);
    expect(repeated.status).toBe(413);
    expect(bodyOf<ApiErrorBody>(repeated).message).toMatch(/10,001 sent, at most 10,000 per PUT/);
  });

  it('accepts 100,000 IDs in one premium PUT', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const res = await put(link, userIds(100_000)).expect(200);
    expect(bodyOf<UserCountBody>(res).data.user_count).toBe(100_000);
  });

  it('enforces the free stored limit of 10,000 with an upgrade hint', async () => {
    const link = await seedLink(h.db, { plan: 'free' });
    await put(link, userIds(10_000)).expect(200);
    const add = await request(h.app)
      .post(`${base(link)}/200000000000000000`)
      .set(auth(link.token));
    expect(add.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(add).message).toMatch(/^Maximum 10,000 users per role link\. Upgrade to premium/);
    const again = await request(h.app)
      .post(`${base(link)}/${userIds(1)[0]}`)
      .set(auth(link.token))
      .expect(200);
    expect(again.body).toEqual({ data: { added: false } });
  });

  it('treats an empty array as removing everyone, held like any emptying', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(3)).expect(200);
    const held = await put(link, []);
    expect(held.status).toBe(409);
    const confirmed = await put(link, [])
      .set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id)
      .expect(200);
    expect(bodyOf<UserCountBody>(confirmed).data.user_count).toBe(0);
    expect(await listOf(h.db, link.linkId)).toEqual([]);
  });

  it('answers malformed JSON, wrong content type and oversized bodies with clear JSON errors', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(2)).expect(200);
    const malformed = await request(h.app)
      .put(base(link))
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .send('["1234567890123456789",');
    expect(malformed.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(malformed).message).toBe('Validation error');
    const text = await request(h.app)
      .put(base(link))
      .set(auth(link.token))
      .set('Content-Type', 'text/plain')
      .send('hello');
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ statusCode: 415, message: 'Content-Type must be application/json' });
    const huge = await request(h.app)
      .put(base(link))
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .send(`[${' '.repeat(5 * 1024 * 1024)}]`);
    expect(huge.status).toBe(413);
    expect(bodyOf<ApiErrorBody>(huge).statusCode).toBe(413);
    // A body that says it is gzip and is not: 400 in the error shape (it was a 500).
    const notGzip = await request(h.app)
      .put(base(link))
      .set(auth(link.token))
      .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
      .send(JSON.stringify(userIds(3)));
    expect(notGzip.status).toBe(400);
    expect(notGzip.body).toEqual({
      statusCode: 400,
      message: 'Request body could not be read: check that it matches its Content-Encoding',
    });
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(2));
  });

  it('stores the same list whatever form JSON and HTTP allow the body in (read straight from its bytes, or parsed)', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const ids = userIds(4);
    const raw = (body: string, headers: Record<string, string> = {}) =>
      request(h.app)
        .put(base(link))
        .set(auth(link.token))
        .set({ 'Content-Type': 'application/json', ...headers })
        .send(body);
    const forms: [string, request.Test][] = [
      ['plain', raw(JSON.stringify(ids))],
      ['whitespace', raw(`\n[ ${ids.map((id) => `"${id}"`).join(' ,\n\t')} ]\r\n`)],
      ['charset', raw(JSON.stringify(ids), { 'Content-Type': 'application/json; charset=UTF-8' })],
      ['byte-order mark', raw(`\ufeff${JSON.stringify(ids)}`)],
      ['an escape', raw(JSON.stringify(ids).replace(`"${ids[0]![0]}`, `"\\u003${ids[0]![0]}`))],
      ['an object item', raw(JSON.stringify([...ids.slice(1), { id: ids[0] }]))],
      [
        'gzip',
        request(h.app)
          .put(base(link))
          .set(auth(link.token))
          .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
          .serialize((bytes: Buffer) => bytes as unknown as string) // sent as they are, not as JSON of a Buffer
          .send(gzipSync(JSON.stringify(ids))),
      ],
    ];
    for (const [form, req] of forms) {
      await put(link, userIds(1)).expect(200);
      const res = await req;
      expect([form, res.status, res.body]).toEqual([form, 200, { data: { user_count: 4 } }]);
      expect([form, await listOf(h.db, link.linkId)]).toEqual([form, ids]);
    }
    // Refused ids are refused the usual way, naming them, and the list is left as it was.
    const padded = await raw(JSON.stringify([ids[0], `0${ids[1]}`]));
    expect(padded.status).toBe(400);
    expect(padded.body).toMatchObject({ statusCode: 400, message: 'Validation error' });
    expect(JSON.stringify(padded.body)).toContain('leading zero');
    expect(await listOf(h.db, link.linkId)).toEqual(ids);
  });

  it('lets one of two concurrent PUTs win whole', async () => {
    const link = await seedLink(h.db, { plan: 'premium', trusted: true });
    const a = userIds(20_000, 100000000000000000n);
    const b = userIds(20_000, 300000000000000000n);
    await put(link, a.slice(0, 15_000)).expect(200);
    const [ra, rb] = await Promise.all([put(link, a), put(link, [...a.slice(0, 15_000), ...b.slice(0, 5_000)])]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    const final = await listOf(h.db, link.linkId);
    const asA = JSON.stringify(final) === JSON.stringify(a);
    const asB = JSON.stringify(final) === JSON.stringify([...a.slice(0, 15_000), ...b.slice(0, 5_000)]);
    expect(asA || asB).toBe(true);
  });
});

describe('shrink hold on replace (spec 3.3, 4.1 rule 6)', () => {
  it('holds a replace removing at least 25% and 10 members, writing nothing, with the exact 409 body', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(40)).expect(200);
    const res = await put(link, userIds(30)).set('X-Request-Id', 'req-1');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      errors: {
        error: 'confirm_required',
        code: 'shrink',
        change_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        previous: 40,
        next: 30,
        removals: 10,
        message: expect.any(String),
      },
      requestId: 'req-1',
    });
    expect(await listOf(h.db, link.linkId)).toHaveLength(40);
  });

  it('lets removals below the threshold through', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(40)).expect(200);
    await put(link, userIds(31)).expect(200);
    await put(link, userIds(60)).expect(200);
  });

  it('accepts the retry carrying the latest change_id once, and refuses an older one', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(100)).expect(200);
    const first = await put(link, userIds(10)).expect(409);
    const second = await put(link, userIds(10)).expect(409);
    expect(bodyOf<ShrinkBody>(second).errors.change_id).not.toBe(bodyOf<ShrinkBody>(first).errors.change_id);
    const stale = await put(link, userIds(10)).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(first).errors.change_id);
    expect(stale.status).toBe(409);
    expect(bodyOf<ShrinkBody>(stale).errors.message).toMatch(/latest/);
    const latest = bodyOf<ShrinkBody>(stale).errors.change_id;
    await put(link, userIds(10)).set('X-RoleLink-Confirm', latest).expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(10));
  });

  it('refuses a confirmation older than one hour', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(100)).expect(200);
    const held = await put(link, userIds(10)).expect(409);
    await h.db.pool.query("UPDATE held_change SET created_at = now() - interval '61 minutes'");
    const late = await put(link, userIds(10)).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id);
    expect(late.status).toBe(409);
    expect(bodyOf<ShrinkBody>(late).errors.message).toMatch(/expired/);
  });

  it('never holds a trusted link', async () => {
    const link = await seedLink(h.db, { trusted: true });
    await put(link, userIds(100)).expect(200);
    await put(link, []).expect(200);
  });

  it('accepts the resent list within an hour of the owner confirming in the dashboard', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(100)).expect(200);
    await put(link, userIds(10)).expect(409);
    await h.db.pool.query('UPDATE held_change SET confirmed_at = now() WHERE link_id = $1', [link.linkId]);
    await put(link, userIds(10)).expect(200);
    await put(link, userIds(0)).expect(409); // the window was spent by the write it allowed
  });

  it("judges a hand-over link's first list against the role's current holders", async () => {
    const link = await seedLink(h.db, { memberMode: 'handover', firstList: false });
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) SELECT $1, ${toStored('x')}, 'applied' FROM unnest($2::numeric[]) x`,
      [link.linkId, userIds(40)],
    );
    const held = await put(link, userIds(20)).expect(409);
    expect(bodyOf<ShrinkBody>(held).errors).toMatchObject({ previous: 40, next: 20, removals: 20 });
    await put(link, userIds(35)).expect(200);
  });

  it("says in the 409 that a hand-over's first list was judged against the role's current holders", async () => {
    const link = await seedLink(h.db, { memberMode: 'handover', firstList: false });
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) SELECT $1, ${toStored('x')}, 'applied' FROM unnest($2::numeric[]) x`,
      [link.linkId, userIds(20)],
    );
    const held = await put(link, userIds(10)).expect(409);
    const { errors } = bodyOf<ShrinkBody>(held);
    // The spec's shape and fields, unchanged; only the words say what `previous` counted.
    expect(Object.keys(errors).sort()).toEqual([
      'change_id',
      'code',
      'error',
      'message',
      'next',
      'previous',
      'removals',
    ]);
    expect(errors).toMatchObject({ error: 'confirm_required', code: 'shrink', previous: 20, next: 10, removals: 10 });
    expect(errors.message).toMatch(
      /^This first list would remove the role from 10 of its 20 current holders \(10 of them are on the list of 10\)\. On a hand-over link the role's current holders count as the previous list/,
    );
    expect(errors.message).toMatch(/X-RoleLink-Confirm: <change_id> within one hour/);
    expect(bodyOf<ShrinkBody>(held).requestId).toEqual(expect.any(String));

    // Once the first list is in, a later shrink is judged against the list and says "users" again.
    await put(link, userIds(10)).set('X-RoleLink-Confirm', errors.change_id).expect(200);
    const later = await put(link, []).expect(409);
    expect(bodyOf<ShrinkBody>(later).errors.message).toMatch(
      /^This change would remove 10 of 10 users \(0 would remain\)/,
    );
  });

  it('records what a held hand-over would add and the first holders it leaves out, for the dashboard', async () => {
    const link = await seedLink(h.db, { memberMode: 'handover', firstList: false });
    const holders = userIds(40);
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) SELECT $1, ${toStored('x')}, 'applied' FROM unnest($2::numeric[]) x`,
      [link.linkId, holders],
    );
    // 5 of the 40 holders stay and 5 members who do not hold the role join: 35 removals, 5 additions.
    const list = [...holders.slice(35), ...userIds(5, 200000000000000000n)];
    const held = await put(link, list).expect(409);
    expect(bodyOf<ShrinkBody>(held).errors).toMatchObject({ previous: 40, next: 10, removals: 35 });
    expect(await latestHeldChange(h.db.pool, link.linkId)).toMatchObject({
      previous: 40,
      next: 10,
      removals: 35,
      additions: 5,
      removalSample: holders.slice(0, 5),
    });
  });
});

describe('single users and reads (spec 4.1)', () => {
  it('adds, checks and removes one user idempotently', async () => {
    const link = await seedLink(h.db);
    const [id] = userIds(1);
    const url = `${base(link)}/${id}`;
    expect((await request(h.app).get(url).set(auth(link.token))).body).toEqual({ data: { exists: false } });
    expect((await request(h.app).post(url).set(auth(link.token))).body).toEqual({ data: { added: true } });
    expect((await request(h.app).post(url).set(auth(link.token))).body).toEqual({ data: { added: false } });
    expect((await request(h.app).get(url).set(auth(link.token))).body).toEqual({ data: { exists: true } });
    expect((await request(h.app).delete(url).set(auth(link.token))).body).toEqual({ data: { removed: true } });
    expect((await request(h.app).delete(url).set(auth(link.token))).body).toEqual({ data: { removed: false } });
  });

  it('never holds a single removal, even the last user', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(1)).expect(200);
    await request(h.app)
      .delete(`${base(link)}/${userIds(1)[0]}`)
      .set(auth(link.token))
      .expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual([]);
  });

  it('lists users in ascending order with counters in meta', async () => {
    const link = await seedLink(h.db, { plan: 'free' });
    const ids = userIds(150).reverse();
    await put(link, ids).expect(200);
    const res = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(bodyOf<UsersListBody>(res).data).toEqual(userIds(150));
    expect(bodyOf<UsersListBody>(res).meta).toEqual({
      user_count: 150,
      synced_count: 0,
      pending_count: 100,
      pending_adds: 100,
      pending_removals: 0,
      synced_limit: 100,
      user_limit: 10_000,
      state: 'syncing',
      state_reason: null,
      held_removals: 0,
    });
  });

  it('splits pending into adds and removals: after a confirmed replace from 1,000 holders to 30, removals', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await put(link, userIds(1_000)).expect(200);
    // The worker has applied the 1,000 (what it writes when its pass ends).
    await h.db.pool.query(
      'UPDATE role_link SET applied_count = 1000, pending_count = 0, sync_done_seq = sync_wanted_seq WHERE id = $1',
      [link.linkId],
    );
    const held = await put(link, userIds(30)).expect(409);
    await put(link, userIds(30)).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id).expect(200);
    const res = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(bodyOf<UsersListBody>(res).meta).toEqual({
      user_count: 30,
      // Who holds the role now: the 970 still to lose it among them (docs/api.md "A link's counts").
      synced_count: 1_000,
      pending_count: 970,
      pending_adds: 0,
      pending_removals: 970,
      synced_limit: 30_000_000,
      user_limit: 30_000_000,
      state: 'syncing',
      state_reason: null,
      held_removals: 0,
    });
  });

  it('leaves listed users no call can reach out of pending: not in the server (10007), deleted accounts (10013)', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const ids = userIds(10);
    await put(link, ids).expect(200);
    // What the worker records: 6 hold the role, 2 are not in the server, 1 account is deleted, 1 add is still to make.
    const outcome = (i: number) => (i < 6 ? 'applied' : i < 8 ? 'not_in_guild' : i === 8 ? 'unknown_user' : null);
    for (const [i, id] of ids.entries())
      if (outcome(i))
        await h.db.pool.query(
          `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, $3)`,
          [link.linkId, id, outcome(i)],
        );
    await h.db.pool.query(
      'UPDATE role_link SET applied_count = 6, pending_count = 4, sync_done_seq = sync_wanted_seq WHERE id = $1',
      [link.linkId],
    );
    const res = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(bodyOf<UsersListBody>(res).meta).toEqual({
      user_count: 10,
      synced_count: 6,
      pending_count: 1,
      pending_adds: 1,
      pending_removals: 0,
      synced_limit: 30_000_000,
      user_limit: 30_000_000,
      state: 'syncing',
      state_reason: null,
      held_removals: 0,
    });
  });

  it('answers an empty data array for an empty list', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const res = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(bodyOf<UsersListBody>(res).data).toEqual([]);
    expect(bodyOf<UsersListBody>(res).meta).toMatchObject({
      user_count: 0,
      synced_limit: 30_000_000,
      user_limit: 30_000_000,
    });
  });

  it('keeps user_count equal to the rows under concurrent adds and removes', async () => {
    const link = await seedLink(h.db);
    const ids = userIds(60);
    await Promise.all(
      ids.map((id) =>
        request(h.app)
          .post(`${base(link)}/${id}`)
          .set(auth(link.token)),
      ),
    );
    await Promise.all(
      ids.slice(0, 20).map((id) =>
        request(h.app)
          .delete(`${base(link)}/${id}`)
          .set(auth(link.token)),
      ),
    );
    const { rows } = await h.db.pool.query<{ user_count: number }>('SELECT user_count FROM role_link WHERE id = $1', [
      link.linkId,
    ]);
    expect(rows[0]!.user_count).toBe(40);
    expect(await listOf(h.db, link.linkId)).toHaveLength(40);
  });
});

describe('GET /users when clients go away', () => {
  // A client that hung up before the list's stream was piped left that connection idle in transaction
  // for good: nothing read or destroyed the stream. Each one held back vacuum and took a connection from
  // the pool until the API could serve nothing (docs/reliability.md, soak). Two ways to get there: the
  // request's 'close' already fired while the pool checkout and BEGIN were awaited, and a keep-alive
  // request queued behind the socket's current response, whose own 'close' Node never emits.
  let server: http.Server;
  let port: number;
  let observer: Client;
  let link: SeededLink;
  beforeEach(async () => {
    link = await seedLink(h.db, { plan: 'premium' });
    await put(link, userIds(2_000)).expect(200);
    server = http.createServer(h.serverOptions, h.app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
    // Its own connection: the app's pool is the one that runs dry when the bug is back.
    observer = new Client({ connectionString: h.db.url });
    await observer.connect();
  });
  afterEach(async () => {
    await observer.end();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /**
   * Connections idle in transaction once the handlers have settled: none for a whole second (a handler
   * still opening a stream the client has left shows one for a moment), or what is left after 10 s.
   */
  async function settledInTransaction(): Promise<number> {
    const count = async () =>
      (
        await observer.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'",
        )
      ).rows[0]!.n;
    const deadline = Date.now() + 10_000;
    let zeroSince = Date.now();
    for (;;) {
      const n = await count();
      if (n > 0) zeroSince = Date.now();
      if (Date.now() - zeroSince >= 1_000 || Date.now() > deadline) return n;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stillServes(): Promise<void> {
    const res = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    expect(bodyOf<UsersListBody>(res).data).toHaveLength(2_000);
  }

  it('after clients that hang up mid-load (autocannon ends its runs by closing its sockets)', async () => {
    for (let i = 0; i < 4; i++)
      await autocannon({
        url: `http://127.0.0.1:${port}${base(link)}`,
        connections: 16,
        duration: 1,
        headers: auth(link.token),
      });
    expect(await settledInTransaction()).toBe(0);
    await stillServes();
  }, 30_000);

  it('after a client that sends pipelined requests and hangs up at once', async () => {
    const get = `GET ${base(link)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${link.token}\r\n\r\n`;
    // A client that stays gets all three lists whole (chunked bodies, each ending in its last chunk).
    const staying = net.connect(port, '127.0.0.1');
    let received = '';
    const whole = new Promise<void>((resolve) =>
      staying.on('data', (b: Buffer) => {
        received += b.toString('latin1');
        if (received.split('\r\n0\r\n\r\n').length - 1 === 3) resolve();
      }),
    );
    staying.write(get.repeat(3));
    await whole;
    staying.destroy();
    expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(3);
    let parsed = 0;
    server.on('request', () => parsed++);
    for (let i = 0; i < 5; i++) {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const before = parsed;
      socket.write(get.repeat(3));
      // Hang up once the server has parsed all three: their handlers are then opening their streams.
      while (parsed < before + 3) await new Promise((r) => setTimeout(r, 1));
      socket.destroy();
    }
    expect(await settledInTransaction()).toBe(0);
    await stillServes();
  }, 30_000);
});

describe('sync requests (spec 6.2, design outbox)', () => {
  it('marks the link and queues one deduplicated role-sync job for a burst of changes', async () => {
    const link = await seedLink(h.db);
    for (const id of userIds(5))
      await request(h.app)
        .post(`${base(link)}/${id}`)
        .set(auth(link.token))
        .expect(200);
    const { rows } = await h.db.pool.query<{ seq: number }>(
      'SELECT sync_wanted_seq::int AS seq FROM role_link WHERE id = $1',
      [link.linkId],
    );
    expect(rows[0]!.seq).toBe(5);
    expect(await syncJobs()).toEqual([link.linkId]);
  });

  it("carries the X-Request-Id of the write that asked into the sync job, for the worker's log lines", async () => {
    const [putLink, addLink, removeLink] = [await seedLink(h.db), await seedLink(h.db), await seedLink(h.db)];
    await put(putLink, userIds(3)).set('X-Request-Id', 'req-put-1').expect(200);
    await request(h.app)
      .post(`${base(addLink)}/${userIds(1)[0]}`)
      .set(auth(addLink.token))
      .set('X-Request-Id', 'req-add-1')
      .expect(200);
    // A listed user to remove, written without the API so that no sync job is queued for this link yet.
    await h.db.pool.query(`INSERT INTO link_user (link_id, user_id) VALUES ($1, ${toStored('$2')})`, [
      removeLink.linkId,
      userIds(1)[0],
    ]);
    await h.db.pool.query('UPDATE role_link SET user_count = 1 WHERE id = $1', [removeLink.linkId]);
    await request(h.app)
      .delete(`${base(removeLink)}/${userIds(1)[0]}`)
      .set(auth(removeLink.token))
      .set('X-Request-Id', 'req-remove-1')
      .expect(200);
    const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
    const requestOf = (l: SeededLink) =>
      (jobs.find((j) => (j.data as { linkId: string }).linkId === l.linkId)?.data as { requestId?: string } | undefined)
        ?.requestId;
    expect([requestOf(putLink), requestOf(addLink), requestOf(removeLink)]).toEqual([
      'req-put-1',
      'req-add-1',
      'req-remove-1',
    ]);
  });

  it('does not ask for a sync when nothing changed', async () => {
    const link = await seedLink(h.db);
    await request(h.app)
      .delete(`${base(link)}/${userIds(1)[0]}`)
      .set(auth(link.token))
      .expect(200);
    expect(await syncJobs()).toEqual([]);
  });
});
