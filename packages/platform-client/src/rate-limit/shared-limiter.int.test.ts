import { Redis } from 'ioredis';
import { PlatformRateLimitedError } from '../errors';
import { SharedRateLimiter } from './shared-limiter';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../../test/support/redis';

const route = { routeKey: 'PUT:/guilds/:id/members/:id/roles/:id', major: '42' };
const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name.toLowerCase()] ?? null });

let redis: Redis;
let prefix: string;
let limiter: SharedRateLimiter;

beforeEach(() => {
  redis = new Redis(REDIS_URL);
  prefix = testQueuePrefix();
  limiter = new SharedRateLimiter({ redis, prefix, globalPerSecond: 1_000, offsetMs: 0 });
});

afterEach(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('SharedRateLimiter', () => {
  it('lets exactly one probe through an undiscovered bucket until the platform answers it', async () => {
    const probe = await limiter.acquire(route, 0);
    expect(probe.kind).toBe('probe');
    await expect(limiter.acquire(route, 0)).rejects.toBeInstanceOf(PlatformRateLimitedError);
    await limiter.observe(
      route,
      probe,
      204,
      headers({
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': '2',
        'x-ratelimit-reset-after': '5',
        'x-ratelimit-bucket': 'abc',
      }),
    );
    expect((await limiter.acquire(route, 0)).kind).toBe('token');
    expect((await limiter.acquire(route, 0)).kind).toBe('token');
    const denied = await limiter.acquire(route, 0).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PlatformRateLimitedError);
    expect((denied as PlatformRateLimitedError).limitedBy).toBe('bucket');
    expect((denied as PlatformRateLimitedError).retryAfterMs).toBeGreaterThan(4_000);
  });

  it('shares a bucket between limiter instances, as separate worker processes do', async () => {
    const otherRedis = new Redis(REDIS_URL);
    try {
      const other = new SharedRateLimiter({ redis: otherRedis, prefix, globalPerSecond: 1_000, offsetMs: 0 });
      const probe = await limiter.acquire(route, 0);
      await limiter.observe(
        route,
        probe,
        204,
        headers({
          'x-ratelimit-limit': '2',
          'x-ratelimit-remaining': '1',
          'x-ratelimit-reset-after': '5',
          'x-ratelimit-bucket': 'abc',
        }),
      );
      expect((await other.acquire(route, 0)).kind).toBe('token');
      await expect(limiter.acquire(route, 0)).rejects.toBeInstanceOf(PlatformRateLimitedError);
    } finally {
      otherRedis.disconnect();
    }
  });

  it('blocks every route of the token after a global 429 for its retry_after', async () => {
    const g = await limiter.acquire(route, 0);
    await limiter.observe(
      route,
      g,
      429,
      headers({ 'retry-after': '2', 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' }),
    );
    const other = { routeKey: 'GET:/guilds/:id/members', major: '7' };
    const denied = (await limiter.acquire(other, 0).catch((e: unknown) => e)) as PlatformRateLimitedError;
    expect(denied.limitedBy).toBe('block');
    expect(denied.retryAfterMs).toBeGreaterThan(1_500);
  });

  it('waits max(retry_after, reset_after) on a shared 429, on that bucket only, without counting it as invalid', async () => {
    const probe = await limiter.acquire(route, 0);
    await limiter.observe(
      route,
      probe,
      204,
      headers({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset-after': '5',
        'x-ratelimit-bucket': 'abc',
      }),
    );
    const g = await limiter.acquire(route, 0);
    // The docs' example: Reset-After 64.57 s, retry_after 1336.57 s (Retry-After 1337).
    await limiter.observe(
      route,
      g,
      429,
      headers({
        'retry-after': '1337',
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset-after': '64.57',
        'x-ratelimit-bucket': 'abc',
        'x-ratelimit-scope': 'shared',
      }),
    );
    const denied = (await limiter.acquire(route, 0).catch((e: unknown) => e)) as PlatformRateLimitedError;
    expect(denied.limitedBy).toBe('bucket');
    expect(denied.retryAfterMs).toBeGreaterThan(1_336_000);
    expect((await limiter.acquire({ ...route, major: '43' }, 0)).kind).toBe('probe');
    expect(await limiter.invalidCount()).toBe(0);
  });

  it('takes a 429 without rate-limit headers for the edge ban: every route blocked, doubling per ban in a row, reset by an API answer', async () => {
    const bans: { began: boolean; blockedMs: number; inARow: number }[] = [];
    const edge = new SharedRateLimiter(
      { redis, prefix, globalPerSecond: 1_000, offsetMs: 0, edgeBanMaxMs: 3_000 },
      { edgeBan: (i) => bans.push(i) },
    );
    const ban = headers({ 'retry-after': '1', 'content-type': 'text/html' });
    const other = { routeKey: 'GET:/guilds/:id/members', major: '7' };

    const first = await edge.acquire(route, 0);
    const inFlight = await edge.acquire(other, 0);
    expect(await edge.observe(route, first, 429, ban)).toEqual({ edgeBan: { blockedMs: expect.any(Number) } });
    // A second answer of the same ban (a request already in flight) is the same ban, not the next one.
    await edge.observe(other, inFlight, 429, ban);
    expect(bans.map((b) => [b.began, b.inARow])).toEqual([
      [true, 1],
      [false, 1],
    ]);
    expect(bans[0]!.blockedMs).toBeGreaterThan(900);
    const denied = (await edge
      .acquire({ routeKey: 'GET:/users/@me', major: 'global' }, 0)
      .catch((e: unknown) => e)) as PlatformRateLimitedError;
    expect(denied.limitedBy).toBe('block');
    expect(await edge.edgeBanRemaining()).toBeGreaterThan(0);
    // Not one of the API's invalid requests: the edge answered it.
    expect(await edge.invalidCount()).toBe(0);

    // The first request after the block is banned again: twice as long, then capped at edgeBanMaxMs.
    const again = await edge.acquire(route, 1_500);
    await edge.observe(route, again, 429, ban);
    expect(bans[2]).toMatchObject({ began: true, inARow: 2 });
    expect(bans[2]!.blockedMs).toBeGreaterThan(1_900);
    const third = await edge.acquire(route, 2_500);
    await edge.observe(route, third, 429, ban);
    expect(bans[3]).toMatchObject({ began: true, inARow: 3, blockedMs: 3_000 });

    // An answer from the API ends the run: the next ban starts again from Retry-After.
    const ok = await edge.acquire(other, 3_500);
    await edge.observe(
      other,
      ok,
      200,
      headers({
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset-after': '1',
        'x-ratelimit-bucket': 'def',
      }),
    );
    const later = await edge.acquire(route, 0);
    await edge.observe(route, later, 429, ban);
    expect(bans[4]).toMatchObject({ began: true, inARow: 1 });
    expect(bans[4]!.blockedMs).toBeLessThanOrEqual(1_000);
  });

  it('stops all requests once invalid answers reach the budget', async () => {
    const strict = new SharedRateLimiter({ redis, prefix, globalPerSecond: 1_000, invalidBudget: 3 });
    for (let i = 0; i < 3; i++) {
      const g = await strict.acquire({ routeKey: 'PUT:/x', major: String(i) }, 100);
      await strict.observe({ routeKey: 'PUT:/x', major: String(i) }, g, 403, headers({}));
    }
    expect(await strict.invalidCount()).toBe(3);
    const budget = await strict.invalidBudget();
    expect(budget).toMatchObject({ count: 3, budget: 3, windowMs: 10 * 60_000, authFailures: 0 });
    expect(budget.heldForMs).toBeGreaterThan(60_000);
    const denied = (await strict
      .acquire({ routeKey: 'PUT:/y', major: '9' }, 0)
      .catch((e: unknown) => e)) as PlatformRateLimitedError;
    expect(denied.limitedBy).toBe('block');
  });

  it('lets no more than the global limit through in any window, across callers', async () => {
    const paced = new SharedRateLimiter({ redis, prefix, globalPerSecond: 5 });
    const started = performance.now();
    // Distinct routes: only the global limit applies. Five go at once (each answered at once), the sixth
    // waits for the window that follows the first answers.
    const times = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const r = { routeKey: 'GET:/r', major: String(i) };
        const grant = await paced.acquire(r, 2_000);
        const at = performance.now() - started;
        await paced.observe(r, grant, 200, headers({}));
        return at;
      }),
    );
    times.sort((a, b) => a - b);
    // A lower bound only, which load cannot break: the sixth waited for the next one-second window.
    expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('counts a request still in flight toward the global limit until its answer, then for one window', async () => {
    const paced = new SharedRateLimiter({ redis, prefix, globalPerSecond: 2 });
    const r = (i: number) => ({ routeKey: 'GET:/r', major: String(i) });
    const slow = await paced.acquire(r(1), 0);
    const answered = await paced.acquire(r(2), 0);
    await paced.observe(r(2), answered, 200, headers({}));
    // The slow request has not answered: however long it takes, it still holds its place.
    const denied = (await paced.acquire(r(3), 0).catch((e: unknown) => e)) as PlatformRateLimitedError;
    expect(denied).toBeInstanceOf(PlatformRateLimitedError);
    expect(denied.limitedBy).toBe('global');
    expect(await paced.globalLoad()).toBe(1);
    // Its answer comes: it counts for one more window from now, like the other, and no longer for the
    // 15 s in-flight lease (the wait allowed here is shorter than the lease).
    await paced.observe(r(1), slow, 200, headers({}));
    expect((await paced.acquire(r(3), 10_000)).kind).toBe('probe');
  });
});
