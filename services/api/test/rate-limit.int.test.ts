import request from 'supertest';
import type { RequestListener } from 'node:http';
import type { RedisClient } from '@rolelink/queue';
import { producerConnection } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { createApi } from '../src/app';
import { startApiHarness, auth, type ApiHarness } from '../../../test/support/api';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';

let h: ApiHarness;
const connections: RedisClient[] = [];
const prefixes: string[] = [];
beforeAll(async () => (h = await startApiHarness()));
afterAll(async () => {
  for (const c of connections) c.disconnect();
  for (const p of prefixes) await dropPrefix(p);
  await h.close();
});
// Link ids may repeat after the reset: each test's counters live under a prefix of their own.
beforeEach(async () => {
  await h.reset();
  prefixes.push(testQueuePrefix());
});

/**
 * One API replica: its own Redis connection, opened right here, so the limiter is built before the
 * socket is ready, as at every process start. Replicas of one test share its prefix. Requests wait for
 * the connection (unless Redis is meant to be unreachable): before it is ready the limiter lets requests
 * through uncounted (enableOfflineQueue is off), which on a loaded host let a refused request through.
 */
async function replica(perPlan = { free: 3, premium: 5 }, redisUrl = REDIS_URL): Promise<RequestListener> {
  const redis = producerConnection(redisUrl, { disconnectTimeout: 50, enableAutoPipelining: true }); // as main.ts opens it
  connections.push(redis);
  const listener = createApi({
    pool: h.db.pool,
    sync: h.sync,
    logger: silentLogger(),
    rateLimit: { redis, prefix: prefixes.at(-1)!, windowMs: 60_000, perPlan },
  }).listener;
  if (redisUrl === REDIS_URL && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return listener;
}

const users = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const get = (app: RequestListener, l: SeededLink) => request(app).get(users(l)).set(auth(l.token));

describe('per-token rate limit', () => {
  it('shares one budget between two replicas through Redis and answers 429 in the error shape with Retry-After', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const link = await seedLink(h.db, { plan: 'free' });
    const first = await get(a, link).expect(200);
    // Draft 8: the policy named after the plan; pk is a hash of the partition key (the link), never the token.
    expect(first.headers['ratelimit-policy']).toMatch(/^"free"; q=3; w=60; pk=:[\w+/=]+:$/);
    expect(first.headers['ratelimit']).toMatch(/^"free"; r=2; t=\d+$/);
    await get(b, link).expect(200);
    const third = await get(a, link).expect(200);
    expect(third.headers['ratelimit']).toMatch(/^"free"; r=0; t=\d+$/);

    const refused = await get(b, link);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      statusCode: 429,
      message: expect.stringMatching(
        /^Too many requests: at most 3 per 60 s for one token on the free plan\. Retry after \d+ s\.$/,
      ),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-request-id']).toBeDefined();
  });

  it('keeps budgets per token and sets the limit by plan', async () => {
    const app = await replica();
    const free = await seedLink(h.db, { plan: 'free' });
    const premium = await seedLink(h.db, { plan: 'premium' });
    for (let i = 0; i < 3; i++) await get(app, free).expect(200);
    await get(app, free).expect(429);
    for (let i = 0; i < 5; i++) {
      const res = await get(app, premium).expect(200);
      expect(res.headers['ratelimit-policy']).toMatch(/^"premium"; q=5; w=60;/);
    }
    await get(app, premium).expect(429);
  });

  it('writes nothing for a refused request', async () => {
    const app = await replica({ free: 1, premium: 1 });
    const link = await seedLink(h.db, { plan: 'free' });
    const [first, second] = userIds(2);
    await request(app)
      .post(`${users(link)}/${first}`)
      .set(auth(link.token))
      .expect(200);
    const refused = await request(app)
      .post(`${users(link)}/${second}`)
      .set(auth(link.token));
    expect(refused.status).toBe(429);
    expect(await listOf(h.db, link.linkId)).toEqual([first]);
  });

  it('does not count requests the authentication refused against anyone', async () => {
    const app = await replica({ free: 1, premium: 1 });
    const link = await seedLink(h.db, { plan: 'free' });
    const bad = await request(app)
      .get(users(link))
      .set(auth('rl_' + 'x'.repeat(40)));
    expect(bad.status).toBe(403);
    expect(bad.headers['ratelimit']).toBeUndefined();
    await get(app, link).expect(200);
  });

  it('lets requests through without headers while Redis is unreachable', async () => {
    const app = await replica({ free: 1, premium: 1 }, 'redis://127.0.0.1:1');
    const link = await seedLink(h.db, { plan: 'free' });
    for (let i = 0; i < 3; i++) {
      const res = await get(app, link).expect(200);
      expect(res.headers['ratelimit']).toBeUndefined();
    }
  });
});
