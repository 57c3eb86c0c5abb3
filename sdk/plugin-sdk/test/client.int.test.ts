import { listOf, seedLink, tamperedToken, userIds, type SeededLink } from '../../../test/support/fixtures';
import { RoleLinkApiError, RoleLinkClient, RoleLinkNetworkError, type RoleLinkClientOptions } from '../src';
import { startFaultyProxy, type Fault, type FaultyProxy } from './faulty-proxy';
import { startListeningApi } from './listening-api';

let api: Awaited<ReturnType<typeof startListeningApi>>;
let proxy: FaultyProxy;
beforeAll(async () => {
  api = await startListeningApi();
});
afterAll(() => api.close());
beforeEach(async () => {
  await api.reset();
  proxy = await startFaultyProxy(api.url);
});
afterEach(() => proxy.close());

// Short backoff so retried tests stay quick; the policy is the same as with the defaults.
const clientFor = (link: SeededLink, extra: Partial<RoleLinkClientOptions> = {}) =>
  new RoleLinkClient({
    baseUrl: proxy.url,
    token: link.token,
    guildId: link.guildId,
    roleId: link.roleId,
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    ...extra,
  });

// eslint-disable-next-line @typescript-eslint/require-await -- an async source of IDs for the SDK to read, with nothing to await
async function* generate(ids: string[]): AsyncGenerator<string> {
  for (const id of ids) yield id;
}

const openSessions = async () =>
  Number(
    (await api.db.pool.query<{ count: string }>('SELECT count(*) FROM upload_session WHERE closed_at IS NULL')).rows[0]!
      .count,
  );

describe('RoleLinkClient against the real API: the calls of spec 4.1', () => {
  it('adds, checks, lists and removes single users, idempotently', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    const [a, b] = userIds(2);
    expect(await client.addUser(a!)).toBe(true);
    expect(await client.addUser(a!)).toBe(false);
    expect(await client.addUser(b!)).toBe(true);
    expect(await client.hasUser(a!)).toBe(true);
    const listed = await client.listUsers();
    expect(listed.userIds).toEqual([a, b]);
    expect(listed.meta).toMatchObject({ user_count: 2, synced_limit: 30_000_000, user_limit: 30_000_000 });
    expect(await client.removeUser(a!)).toBe(true);
    expect(await client.removeUser(a!)).toBe(false);
    expect(await client.hasUser(a!)).toBe(false);
  });

  it('adds a user until an expiry (a time or a TTL), shows it with includeExpiry, and a plain re-add makes it permanent', async () => {
    const link = await seedLink(api.db);
    const client = clientFor(link);
    const [a, b] = userIds(2);
    expect(await client.addUser(a!, { expiresAt: new Date('2034-05-06T07:08:09.010Z') })).toBe(true);
    expect(await client.addUser(b!, { ttlSeconds: 3600 })).toBe(true);
    const { meta } = await client.listUsers({ includeExpiry: true });
    expect(meta.expiries![a!]).toBe('2034-05-06T07:08:09.010Z');
    expect(Date.parse(meta.expiries![b!]!)).toBeGreaterThan(Date.now() + 3_500_000);
    expect((await client.listUsers()).meta.expiries).toBeUndefined();
    const refused = await client.addUser(a!, { ttlSeconds: 1.5 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RoleLinkApiError);
    expect((refused as RoleLinkApiError).statusCode).toBe(400);
    expect(await client.addUser(a!)).toBe(false);
    expect(Object.keys((await client.listUsers({ includeExpiry: true })).meta.expiries!)).toEqual([b]);
  });

  it("throws RoleLinkApiError with the service's statusCode and message, without retrying a 4xx", async () => {
    const link = await seedLink(api.db);
    const client = clientFor({ ...link, token: tamperedToken(link.token) });
    const err = await client.hasUser(userIds(1)[0]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RoleLinkApiError);
    expect(err).toMatchObject({ statusCode: 403, message: 'Invalid or revoked token' });
    expect((err as RoleLinkApiError).requestId).toEqual(expect.any(String));
    expect(proxy.seen).toHaveLength(1);
    const bad = await clientFor(link)
      .putUsers(['12'])
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Validation error: body\.0: /),
      body: { message: 'Validation error', details: [expect.stringContaining('body.0')] },
    });
    // The service's own refusal, too: its first detail is in the message, its whole body in `body`.
    const served = await clientFor(link)
      .addUser(userIds(1)[0]!, { expiresAt: 'next tuesday' })
      .catch((e: unknown) => e);
    expect(served).toBeInstanceOf(RoleLinkApiError);
    const { message, body } = served as RoleLinkApiError;
    const details = (body as { details: string[] }).details;
    expect(details.length).toBeGreaterThan(0);
    expect(message).toBe(
      `Validation error: ${details[0]}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
    );
    expect(message).toMatch(/expires_at/);
  });
});

describe('replaceUsers: PUT or the chunked upload by size', () => {
  it('sends a list within maxPutUsers as one PUT', async () => {
    const link = await seedLink(api.db);
    const outcome = await clientFor(link).replaceUsers(userIds(30));
    expect(outcome).toEqual({
      held: null,
      userCount: 30,
      via: 'put',
      listVersion: expect.any(String),
      replayed: false,
    });
    expect(proxy.seen).toEqual([`PUT /api/role-link/${link.guildId}/${link.roleId}/users`]);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it('streams a larger async iterable in chunks, never more than `concurrency` at once, then commits', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    proxy.concurrencyOf = (req) => /\/chunk$/.test(req.url ?? '');
    const ids = userIds(95);
    const outcome = await clientFor(link).replaceUsers(generate([...ids, ...ids.slice(0, 5)]), {
      maxPutUsers: 20,
      chunkSize: 10,
      concurrency: 3,
    });
    expect(outcome).toEqual({
      held: null,
      userCount: 95,
      via: 'upload',
      listVersion: expect.any(String),
      replayed: false,
    });
    expect(proxy.seen.filter((s) => s.endsWith('/chunk'))).toHaveLength(10);
    expect(proxy.peakConcurrency).toBe(3);
    expect(proxy.seen.at(-1)).toMatch(/\/commit$/);
    expect(await listOf(api.db, link.linkId)).toEqual(ids);
  });

  it('cancels the session and leaves the live list untouched when a chunk fails', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    await client.replaceUsers(userIds(5));
    const ids = [...userIds(25, 200000000000000000n), 'not-an-id', ...userIds(25, 300000000000000000n)];
    const err = await client
      .replaceUsers(ids, { maxPutUsers: 10, chunkSize: 10, concurrency: 2 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 400, message: expect.stringMatching(/^Validation error: body\.\d+: /) });
    expect(proxy.seen.some((s) => s.startsWith('DELETE') && /\/upload\/[0-9a-f-]{36}$/.test(s))).toBe(true);
    expect(proxy.seen.some((s) => s.endsWith('/commit'))).toBe(false);
    expect(await openSessions()).toBe(0);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(5));
  });

  it('answers a large removal by PUT as { held } and applies the same list on confirm()', async () => {
    const link = await seedLink(api.db);
    const client = clientFor(link);
    await client.replaceUsers(userIds(40));
    const outcome = await client.replaceUsers(userIds(20));
    if (!outcome.held) throw new Error('expected a hold');
    expect(outcome.held).toEqual({
      changeId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      previous: 40,
      next: 20,
      removals: 20,
      message: expect.any(String),
    });
    expect(await listOf(api.db, link.linkId)).toHaveLength(40);
    expect(await outcome.confirm()).toEqual({
      held: null,
      userCount: 20,
      via: 'put',
      listVersion: expect.any(String),
      replayed: false,
    });
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(20));
  });

  it("keeps a held upload's staging: confirm() re-commits it, cancel() discards it", async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    await client.replaceUsers(userIds(100));
    const options = { maxPutUsers: 10, chunkSize: 10 };
    const held = await client.replaceUsers(userIds(30), options);
    if (!held.held) throw new Error('expected a hold');
    expect(held).toMatchObject({ via: 'upload', held: { previous: 100, next: 30, removals: 70 } });
    expect(await held.confirm(held.held.changeId)).toEqual({
      held: null,
      userCount: 30,
      via: 'upload',
      listVersion: expect.any(String),
      replayed: false,
    });
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));

    const again = await client.replaceUsers(userIds(11), options);
    if (!again.held) throw new Error('expected a hold');
    await again.cancel();
    expect(await openSessions()).toBe(0);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it('sends X-RoleLink-Confirm given as an option', async () => {
    const link = await seedLink(api.db);
    const client = clientFor(link);
    await client.replaceUsers(userIds(40));
    const first = await client.replaceUsers([]);
    if (!first.held) throw new Error('expected a hold');
    expect(await client.replaceUsers([], { confirm: first.held.changeId })).toEqual({
      held: null,
      userCount: 0,
      via: 'put',
      listVersion: expect.any(String),
      replayed: false,
    });
  });
});

describe('retries', () => {
  const isPut = (req: { method?: string }) => req.method === 'PUT';

  it('retries 5xx answers and dropped connections of an idempotent call, then succeeds', async () => {
    const link = await seedLink(api.db);
    proxy.inject(isPut, { kind: 'answer', status: 502 }, { kind: 'drop' }, { kind: 'answer', status: 500 });
    expect(await clientFor(link).replaceUsers(userIds(3))).toMatchObject({ userCount: 3 });
    expect(proxy.seen.filter((s) => s.startsWith('PUT'))).toHaveLength(4);
  });

  it('waits for Retry-After on a 429', async () => {
    const link = await seedLink(api.db);
    proxy.inject(isPut, { kind: 'answer', status: 429, headers: { 'Retry-After': '1' } });
    const started = Date.now();
    expect(await clientFor(link).replaceUsers(userIds(3))).toMatchObject({ userCount: 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('gives up after `retries` and throws the last answer, or a RoleLinkNetworkError', async () => {
    const link = await seedLink(api.db);
    const client = clientFor(link, { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    proxy.inject(isPut, ...Array<Fault>(3).fill({ kind: 'answer', status: 503 }));
    await expect(client.putUsers(userIds(1))).rejects.toMatchObject({ statusCode: 503, message: 'injected 503' });
    proxy.inject(isPut, ...Array<Fault>(3).fill({ kind: 'drop' }));
    await expect(client.putUsers(userIds(1))).rejects.toBeInstanceOf(RoleLinkNetworkError);
    expect(proxy.seen).toHaveLength(6);
  });

  it('repeats a commit whose answer was lost with the same Idempotency-Key: the first answer comes back, nothing runs twice', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const keys: string[] = [];
    proxy.inject(
      (req) => /\/commit$/.test(req.url ?? '') && Boolean(keys.push(String(req.headers['idempotency-key']))),
      { kind: 'lose-answer' },
    );
    const outcome = await clientFor(link).replaceUsers(userIds(30), { maxPutUsers: 10, chunkSize: 10 });
    expect(outcome).toMatchObject({
      held: null,
      userCount: 30,
      via: 'upload',
      replayed: true,
      listVersion: expect.stringMatching(/^"\d+\.\d+"$/),
    });
    expect(proxy.seen.filter((s) => s.endsWith('/commit'))).toHaveLength(2);
    expect(keys).toHaveLength(1); // the rule matched the first commit only; the retry carried the same key (replayed)
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it("without a key (idempotencyKey: ''), does not repeat a commit whose answer was lost (it may have replaced the list)", async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    proxy.inject((req) => /\/commit$/.test(req.url ?? ''), { kind: 'lose-answer' });
    const err = await clientFor(link)
      .replaceUsers(userIds(30), { maxPutUsers: 10, chunkSize: 10, idempotencyKey: '' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RoleLinkNetworkError);
    expect(proxy.seen.filter((s) => s.endsWith('/commit'))).toHaveLength(1);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it('sends one Idempotency-Key per call and the same one on every retry of it; a PUT whose answer was lost is replayed', async () => {
    const link = await seedLink(api.db);
    const keys: string[] = [];
    proxy.inject((req) => req.method === 'PUT' && Boolean(keys.push(String(req.headers['idempotency-key']))), {
      kind: 'lose-answer',
    });
    const client = clientFor(link);
    expect(await client.putUsers(userIds(3))).toMatchObject({ held: null, userCount: 3, replayed: true });
    expect(proxy.seen.filter((s) => s.startsWith('PUT'))).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    // The proxy reads a request's key while its rule has faults left: the first attempt and its retry.
    const single: string[] = [];
    const answer503 = { kind: 'answer', status: 503 } as const;
    proxy.inject(
      (req) => req.method === 'POST' && Boolean(single.push(String(req.headers['idempotency-key']))),
      answer503,
      answer503,
    );
    expect(await client.addUser(userIds(4)[3]!)).toBe(true);
    expect(single).toHaveLength(2);
    expect(single[1]).toBe(single[0]);
    proxy.inject(
      (req) => req.method === 'POST' && Boolean(single.push(String(req.headers['idempotency-key']))),
      answer503,
    );
    expect(await client.addUser(userIds(5)[4]!, { idempotencyKey: 'mine-1' })).toBe(true);
    expect(single[2]).toBe('mine-1');
    expect(single[0]).not.toBe('mine-1');
  });

  it('retries the 409 of a key whose first request is still running, then gets its answer', async () => {
    const link = await seedLink(api.db);
    proxy.inject(isPut, {
      kind: 'answer',
      status: 409,
      body: {
        statusCode: 409,
        message: 'A request with this Idempotency-Key is still being processed. Retry after it has answered.',
      },
    });
    expect(await clientFor(link).putUsers(userIds(2), { idempotencyKey: 'running-1' })).toMatchObject({
      held: null,
      userCount: 2,
    });
    expect(proxy.seen.filter((s) => s.startsWith('PUT'))).toHaveLength(2);
  });

  it('stops waiting for Retry-After as soon as the AbortSignal fires', async () => {
    const link = await seedLink(api.db);
    proxy.inject(isPut, { kind: 'answer', status: 429, headers: { 'Retry-After': '30' } });
    const controller = new AbortController();
    const call = clientFor(link).replaceUsers(userIds(3), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(call).rejects.toThrow('shutting down');
    // It stopped inside the 30 s wait: the 429 was the only PUT, no retry followed (no clock needed).
    expect(proxy.seen.filter((s) => s.startsWith('PUT'))).toHaveLength(1);
    expect(await listOf(api.db, link.linkId)).toEqual([]);
  });
});

describe('list version, If-Match, Idempotency-Key and dry runs', () => {
  it('exposes the list version and answers a stale ifMatch with a typed 412', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    const read = await client.listUsers();
    expect(read.listVersion).toMatch(/^"\d+\.\d+"$/);
    const written = await client.replaceUsers(userIds(3), { ifMatch: read.listVersion! });
    expect(written).toMatchObject({ held: null, userCount: 3, via: 'put', replayed: false });
    const version = (written as { listVersion: string }).listVersion;
    expect(version).not.toBe(read.listVersion);
    expect((await client.listUsers()).listVersion).toBe(version);

    const stale = await client.replaceUsers(userIds(4), { ifMatch: read.listVersion! }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RoleLinkApiError);
    expect(stale).toMatchObject({ statusCode: 412, listVersion: version });
    const staleCommit = await client
      .replaceUsers(userIds(30), { ifMatch: read.listVersion!, maxPutUsers: 10, chunkSize: 10 })
      .catch((e: unknown) => e);
    expect(staleCommit).toMatchObject({ statusCode: 412 });
    expect(await openSessions()).toBe(0);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(3));
  });

  it("replays a write with the caller's Idempotency-Key and refuses the key for another request", async () => {
    const link = await seedLink(api.db);
    const client = clientFor(link);
    expect(await client.putUsers(userIds(3), { idempotencyKey: 'sdk-a' })).toMatchObject({
      userCount: 3,
      replayed: false,
    });
    expect(await client.putUsers(userIds(3), { idempotencyKey: 'sdk-a' })).toMatchObject({
      userCount: 3,
      replayed: true,
    });
    await expect(client.putUsers(userIds(4), { idempotencyKey: 'sdk-a' })).rejects.toMatchObject({ statusCode: 422 });
    expect(await client.removeUser(userIds(3)[2]!, { idempotencyKey: 'sdk-b' })).toBe(true);
    expect(await client.removeUser(userIds(3)[2]!, { idempotencyKey: 'sdk-b' })).toBe(true); // the first answer, replayed
  });

  it('answers a dry run with the typed DryRunResult and writes nothing, by PUT and by the chunked flow', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    await client.replaceUsers(userIds(20));
    const small = await client.replaceUsers(userIds(5), { dryRun: true });
    expect(small).toMatchObject({
      via: 'put',
      dryRun: {
        dry_run: true,
        status: 409,
        outcome: 'held',
        removals: 15,
        next_user_count: 5,
        shrink: { would_hold: true },
      },
    });
    const large = await client.replaceUsers(userIds(30), { dryRun: true, maxPutUsers: 10, chunkSize: 10 });
    expect(large).toMatchObject({
      via: 'upload',
      dryRun: { dry_run: true, status: 200, outcome: 'replaced', adds: 10, removals: 0, next_user_count: 30 },
    });
    expect(await openSessions()).toBe(0);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(20));
  });
});
