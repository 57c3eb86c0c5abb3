import type { RESTRateLimit } from 'discord-api-types/v10';
import type { EmulatorOptions } from './options';
import type { EmulatorSeed } from './seed';
import { startEmulator, type RunningEmulator } from './server';
import { call, control, GUILD, ROLE, smallSeed, UNKNOWN_GUILD, USERS } from '../test/support/fixtures';

const OTHER_GUILD = '122222222222222222';
const roleRoute = (user: string, role: string = ROLE.linked, guild: string = GUILD) =>
  `/guilds/${guild}/members/${user}/roles/${role}`;

function twoGuilds(): EmulatorSeed {
  const seed = smallSeed();
  const first = seed.guilds[0]!;
  return { guilds: [first, { ...first, id: OTHER_GUILD, name: 'Other guild' }] };
}

describe('platform rate limits', () => {
  let emulator: RunningEmulator;
  const start = async (options: EmulatorOptions) => {
    emulator = await startEmulator({ port: 0, seed: twoGuilds(), ...options });
    return emulator;
  };
  afterEach(() => emulator.close());

  it('answers the 11th member-role change of a guild in a 10-per-window bucket with 429 scope user', async () => {
    // The emulator's clock runs with real time; the test moves it forward instead of sleeping.
    let skippedMs = 0;
    await start({ roleBucket: { limit: 10, windowMs: 2000 }, now: () => Date.now() + skippedMs });
    const hashes = new Set<string | null>();
    for (let i = 0; i < 10; i++) {
      // Different members and both methods: one bucket for all role changes of the guild.
      const res = await call(emulator, i % 2 ? 'DELETE' : 'PUT', roleRoute(USERS[i % USERS.length]!));
      expect(res.status).toBe(204);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
      hashes.add(res.headers.get('x-ratelimit-bucket'));
    }
    expect(hashes.size).toBe(1);

    const limited = await call<RESTRateLimit>(emulator, 'PUT', roleRoute(USERS[0]));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      message: 'You are being rate limited.',
      retry_after: expect.any(Number),
      global: false,
    });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(2);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-global')).toBeNull();
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-bucket')).toBe([...hashes][0]);
    expect(Number(limited.headers.get('retry-after'))).toBe(Math.ceil(limited.body.retry_after));
    expect(Number(limited.headers.get('x-ratelimit-reset-after'))).toBeCloseTo(limited.body.retry_after, 2);
    expect(Number(limited.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
    expect(emulator.state.stats().rateLimited).toEqual({ user: 1, global: 0, shared: 0 });

    // Another guild's role bucket (same hash: the hash leaves out the guild, the major parameter) and
    // this guild's read routes are untouched.
    const other = await call(emulator, 'PUT', roleRoute(USERS[0], ROLE.linked, OTHER_GUILD));
    expect(other.status).toBe(204);
    expect(other.headers.get('x-ratelimit-bucket')).toBe([...hashes][0]);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('9');
    expect((await call(emulator, 'GET', `/guilds/${GUILD}/roles`)).status).toBe(200);

    // Honouring retry_after is enough: the next window opens with the first request after it.
    skippedMs += limited.body.retry_after * 1000 + 20;
    const after = await call(emulator, 'PUT', roleRoute(USERS[0]));
    expect(after.status).toBe(204);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('answers 429 global with X-RateLimit-Global once the per-token limit per second is spent', async () => {
    await start({ globalPerSecond: 5 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call<RESTRateLimit>(emulator, 'GET', '/users/@me')),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(limited).toHaveLength(1);
    const [res] = limited;
    expect(res!.body).toMatchObject({ message: 'You are being rate limited.', global: true });
    expect(res!.body.retry_after).toBeGreaterThan(0);
    expect(res!.body.retry_after).toBeLessThanOrEqual(1);
    expect(res!.headers.get('x-ratelimit-global')).toBe('true');
    expect(res!.headers.get('x-ratelimit-scope')).toBe('global');
    expect(res!.headers.get('retry-after')).toBe('1');
    expect(emulator.state.stats().rateLimited).toEqual({ user: 0, global: 1, shared: 0 });
  });

  it('counts 401, 403 and 429 answers as invalid and bans every request once the threshold is reached', async () => {
    await start({ invalidThreshold: 5, banMs: 60_000, roleBucket: { limit: 2, windowMs: 60_000 } });
    expect((await call(emulator, 'GET', '/users/@me', { token: 'nope' })).status).toBe(401);
    expect((await call(emulator, 'PUT', roleRoute(USERS[0], ROLE.moderator))).status).toBe(403);
    expect((await call(emulator, 'PUT', roleRoute(USERS[0]))).status).toBe(204);
    expect((await call(emulator, 'GET', `/guilds/${GUILD}/members/499999999999999999`)).status).toBe(404);
    expect((await call(emulator, 'PUT', roleRoute(USERS[1]))).status).toBe(429);
    expect(emulator.state.stats()).toMatchObject({ invalidRequests: 3, banned: false });
    expect((await call(emulator, 'GET', '/users/@me', { token: null })).status).toBe(401);
    expect((await call(emulator, 'PUT', roleRoute(USERS[2]))).status).toBe(429);

    // The edge's ban: 429, an HTML page (Cloudflare's error 1015), Retry-After, and no X-RateLimit-* at all.
    const banned = await call<string>(emulator, 'GET', '/users/@me');
    expect(banned.status).toBe(429);
    expect(banned.headers.get('content-type')).toMatch(/^text\/html/);
    expect(banned.body).toContain('1015');
    expect(() => JSON.parse(banned.body) as unknown).toThrow();
    expect(Number(banned.headers.get('retry-after'))).toBe(60);
    expect([...banned.headers.keys()].filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
    const bannedRole = await call<string>(emulator, 'PUT', roleRoute(USERS[3]));
    expect(bannedRole.status).toBe(429);
    expect(bannedRole.headers.get('x-ratelimit-bucket')).toBeNull();
    const stats = emulator.state.stats();
    // The ban's own answers are neither invalid requests nor per-scope 429s.
    expect(stats).toMatchObject({
      banned: true,
      invalidRequestsTotal: 5,
      bannedResponses: 2,
      rateLimited: { user: 2, global: 0, shared: 0 },
    });
    expect(stats.banRemainingMs).toBeGreaterThan(59_000);

    // Control routes are neither limited nor banned, and a reset lifts the ban.
    expect((await control(emulator, 'GET', '/stats')).status).toBe(200);
    expect((await control(emulator, 'POST', '/reset')).status).toBe(204);
    expect(emulator.state.stats()).toMatchObject({ banned: false, invalidRequests: 0, requests: 0 });
    expect((await call(emulator, 'GET', '/users/@me')).status).toBe(200);
  });

  it("answers 429 scope shared while a guild's member roles are under a shared limit: retry_after beyond Reset-After, not counted as invalid", async () => {
    await start({ invalidThreshold: 3, roleBucket: { limit: 10, windowMs: 10_000 } });
    expect((await call(emulator, 'PUT', roleRoute(USERS[0]))).status).toBe(204);
    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/shared-limit`, { retryAfterMs: 90_000 })).status).toBe(
      204,
    );

    for (let i = 0; i < 4; i++) {
      const res = await call<RESTRateLimit>(emulator, i % 2 ? 'DELETE' : 'PUT', roleRoute(USERS[1]));
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        message: 'The resource is being rate limited.',
        retry_after: expect.any(Number),
        global: false,
      });
      expect(res.headers.get('x-ratelimit-scope')).toBe('shared');
      expect(res.headers.get('x-ratelimit-global')).toBeNull();
      // As the docs' example: the bucket itself is not spent (Remaining 9 of 10) and resets long before retry_after.
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('9');
      const resetAfter = Number(res.headers.get('x-ratelimit-reset-after'));
      expect(resetAfter).toBeLessThanOrEqual(10);
      expect(res.body.retry_after).toBeGreaterThan(80);
      expect(res.body.retry_after).toBeGreaterThan(resetAfter);
      expect(Number(res.headers.get('retry-after'))).toBe(Math.ceil(res.body.retry_after));
    }
    // Another guild and this guild's other routes are not limited.
    expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked, OTHER_GUILD))).status).toBe(204);
    expect((await call(emulator, 'GET', `/guilds/${GUILD}/roles`)).status).toBe(200);
    expect(emulator.state.stats()).toMatchObject({
      rateLimited: { user: 0, global: 0, shared: 4 },
      invalidRequests: 0,
      banned: false,
    });

    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/shared-limit`, { retryAfterMs: 0 })).status).toBe(204);
    expect((await call(emulator, 'PUT', roleRoute(USERS[1]))).status).toBe(204);
    expect((await control(emulator, 'PUT', `/guilds/${UNKNOWN_GUILD}/shared-limit`, { retryAfterMs: 1 })).status).toBe(
      404,
    );
    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/shared-limit`, { retryAfterMs: -1 })).status).toBe(400);
  });

  it('applies limits changed through PATCH /_emulator/config from the next request', async () => {
    await start({});
    const patched = await control(emulator, 'PATCH', '/config', {
      roleBucket: { limit: 2, windowMs: 60_000 },
      latencyMs: 150,
    });
    expect(patched.body).toMatchObject({
      roleBucket: { limit: 2, windowMs: 60_000 },
      latencyMs: 150,
      globalPerSecond: 50,
    });
    const began = Date.now();
    expect((await call(emulator, 'PUT', roleRoute(USERS[0]))).headers.get('x-ratelimit-limit')).toBe('2');
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    await call(emulator, 'PUT', roleRoute(USERS[1]));
    expect((await call(emulator, 'PUT', roleRoute(USERS[2]))).status).toBe(429);

    const invalid = await control<{ message: string }>(emulator, 'PATCH', '/config', {
      roleBucket: { limit: 0, windowMs: 10 },
    });
    expect(invalid.status).toBe(400);
    const unknownKey = await control(emulator, 'PATCH', '/config', { burst: 3 });
    expect(unknownKey.status).toBe(400);
  });

  it('does not count 404 and 400 answers as invalid requests', async () => {
    await start({ invalidThreshold: 2 });
    for (let i = 0; i < 5; i++) {
      expect((await call(emulator, 'PUT', roleRoute('499999999999999999'))).status).toBe(404);
      expect((await call(emulator, 'GET', `/guilds/${GUILD}/members?limit=0`)).status).toBe(400);
    }
    expect(emulator.state.stats()).toMatchObject({ invalidRequests: 0, banned: false });
  });
});
