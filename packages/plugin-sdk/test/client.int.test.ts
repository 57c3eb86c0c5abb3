import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';
import { RoleLinkApiError, RoleLinkClient, RoleLinkNetworkError, type RoleLinkClientOptions } from '../src';
import { startFaultyProxy, type FaultyProxy } from './faulty-proxy';
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
  new RoleLinkClient({ baseUrl: proxy.url, token: link.token, guildId: link.guildId, roleId: link.roleId, retry: { baseDelayMs: 10, maxDelayMs: 50 }, ...extra });

async function* generate(ids: string[]): AsyncGenerator<string> {
  for (const id of ids) yield id;
}

const openSessions = async () => Number((await api.db.pool.query('SELECT count(*) FROM upload_session WHERE closed_at IS NULL')).rows[0].count);

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

  it('throws RoleLinkApiError with the service\'s statusCode and message, without retrying a 4xx', async () => {
    const link = await seedLink(api.db);
    const client = clientFor({ ...link, token: `${link.token.slice(0, -1)}x` });
    const err = await client.hasUser(userIds(1)[0]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RoleLinkApiError);
    expect(err).toMatchObject({ statusCode: 403, message: 'Invalid or revoked token' });
    expect((err as RoleLinkApiError).requestId).toEqual(expect.any(String));
    expect(proxy.seen).toHaveLength(1);
    const bad = await clientFor(link).putUsers(['12']).catch((e: unknown) => e);
    expect(bad).toMatchObject({ statusCode: 400, message: 'Validation error', body: { details: [expect.stringContaining('body.0')] } });
  });
});

describe('replaceUsers: PUT or the chunked upload by size', () => {
  it('sends a list within maxPutUsers as one PUT', async () => {
    const link = await seedLink(api.db);
    const outcome = await clientFor(link).replaceUsers(userIds(30));
    expect(outcome).toEqual({ held: null, userCount: 30, via: 'put' });
    expect(proxy.seen).toEqual([`PUT /api/role-link/${link.guildId}/${link.roleId}/users`]);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it('streams a larger async iterable in chunks, never more than `concurrency` at once, then commits', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    proxy.concurrencyOf = (req) => /\/chunk$/.test(req.url ?? '');
    const ids = userIds(95);
    const outcome = await clientFor(link).replaceUsers(generate([...ids, ...ids.slice(0, 5)]), { maxPutUsers: 20, chunkSize: 10, concurrency: 3 });
    expect(outcome).toEqual({ held: null, userCount: 95, via: 'upload' });
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
    const err = await client.replaceUsers(ids, { maxPutUsers: 10, chunkSize: 10, concurrency: 2 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 400, message: 'Validation error' });
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
    expect(outcome.held).toEqual({ changeId: expect.stringMatching(/^[0-9a-f-]{36}$/), previous: 40, next: 20, removals: 20, message: expect.any(String) });
    expect(await listOf(api.db, link.linkId)).toHaveLength(40);
    expect(await outcome.confirm()).toEqual({ held: null, userCount: 20, via: 'put' });
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(20));
  });

  it('keeps a held upload\'s staging: confirm() re-commits it, cancel() discards it', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    const client = clientFor(link);
    await client.replaceUsers(userIds(100));
    const options = { maxPutUsers: 10, chunkSize: 10 };
    const held = await client.replaceUsers(userIds(30), options);
    if (!held.held) throw new Error('expected a hold');
    expect(held).toMatchObject({ via: 'upload', held: { previous: 100, next: 30, removals: 70 } });
    expect(await held.confirm(held.held.changeId)).toEqual({ held: null, userCount: 30, via: 'upload' });
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
    expect(await client.replaceUsers([], { confirm: first.held.changeId })).toEqual({ held: null, userCount: 0, via: 'put' });
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
    proxy.inject(isPut, ...Array(3).fill({ kind: 'answer', status: 503 }));
    await expect(client.putUsers(userIds(1))).rejects.toMatchObject({ statusCode: 503, message: 'injected 503' });
    proxy.inject(isPut, ...Array(3).fill({ kind: 'drop' }));
    await expect(client.putUsers(userIds(1))).rejects.toBeInstanceOf(RoleLinkNetworkError);
    expect(proxy.seen).toHaveLength(6);
  });

  it('does not repeat a commit whose answer was lost (it may have replaced the list)', async () => {
    const link = await seedLink(api.db, { plan: 'premium' });
    proxy.inject((req) => /\/commit$/.test(req.url ?? ''), { kind: 'lose-answer' });
    const err = await clientFor(link).replaceUsers(userIds(30), { maxPutUsers: 10, chunkSize: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RoleLinkNetworkError);
    expect(proxy.seen.filter((s) => s.endsWith('/commit'))).toHaveLength(1);
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(30));
  });

  it('stops waiting for Retry-After as soon as the AbortSignal fires', async () => {
    const link = await seedLink(api.db);
    proxy.inject(isPut, { kind: 'answer', status: 429, headers: { 'Retry-After': '30' } });
    const controller = new AbortController();
    const started = Date.now();
    const call = clientFor(link).replaceUsers(userIds(3), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(call).rejects.toThrow('shutting down');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await listOf(api.db, link.linkId)).toEqual([]);
  });
});
