import { once } from 'node:events';
import { producerConnection, type RedisClient } from '@rolelink/queue';
import { LeasedRedisStore, MAX_LEASE } from '../src/rate-limit-store';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';

const prefix = testQueuePrefix();
let redis: RedisClient;
let key = 0;
beforeAll(async () => {
  redis = producerConnection(REDIS_URL);
  await once(redis, 'ready');
});
afterAll(async () => {
  await dropPrefix(prefix);
  redis.disconnect();
});

/** A store as one API replica builds it; replicas given the same `name` share one budget. */
function store(limit: () => number, windowMs = 60_000, conn = redis) {
  return new LeasedRedisStore({ redis: conn, prefix: `${prefix}:`, windowMs, limitOf: limit });
}
const newKey = () => `link-${++key}`;
const counted = async (k: string) => Number(await redis.get(`${prefix}:${k}`));

describe('LeasedRedisStore (the per-token limiter)', () => {
  it('hands out every position once under concurrency, with one Redis take per lease', async () => {
    const s = store(() => 1_000_000);
    const k = newKey();
    const hits = await Promise.all(Array.from({ length: 1000 }, () => s.increment(k)));
    const positions = hits.map((h) => h.totalHits).sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    // 1,000 hits cost ceil(1000 / 64) = 16 takes; what Redis counts is what the leases hold.
    expect(await counted(k)).toBe(Math.ceil(1000 / MAX_LEASE) * MAX_LEASE);
    expect(hits[0]!.resetTime.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('lets exactly the limit through when two replicas share a budget under continuous demand', async () => {
    const [a, b] = [store(() => 100), store(() => 100)];
    const k = newKey();
    const allowed = { a: 0, b: 0 };
    for (let i = 0; i < 300; i++) {
      const [name, replica] = i % 3 ? (['a', a] as const) : (['b', b] as const);
      if ((await replica.increment(k)).totalHits <= 100) allowed[name]++;
    }
    expect(allowed.a + allowed.b).toBe(100);
    expect(allowed.b).toBeGreaterThan(20); // both replicas served from the one budget
  });

  it('takes one hit at a time near the limit, and refuses from memory once the budget is spent', async () => {
    const s = store(() => 8);
    const k = newKey();
    for (let i = 1; i <= 8; i++) {
      expect((await s.increment(k)).totalHits).toBe(i);
      expect(await counted(k)).toBe(i); // leases of 1: nothing is held that another replica could use
    }
    for (let i = 1; i <= 50; i++) expect((await s.increment(k)).totalHits).toBe(8 + i);
    expect(await counted(k)).toBe(8); // the refused 50 never reached Redis
  });

  it('applies a larger limit at once (a plan upgrade mid-window)', async () => {
    let limit = 3;
    const s = store(() => limit);
    const k = newKey();
    for (let i = 0; i < 4; i++) await s.increment(k); // the 4th is refused, from memory
    limit = 10;
    // The refused hit took nothing from the budget: the next request is the 4th counted.
    expect((await s.increment(k)).totalHits).toBe(4);
    expect(await counted(k)).toBe(4);
  });

  it('starts a new window when the old one resets', async () => {
    const s = store(() => 2, 300);
    const k = newKey();
    await s.increment(k);
    await s.increment(k);
    expect((await s.increment(k)).totalHits).toBe(3);
    await new Promise((r) => setTimeout(r, 350));
    expect((await s.increment(k)).totalHits).toBe(1);
  });

  it('fails fast while Redis is unreachable (the limiter then lets the request through)', async () => {
    const down = producerConnection('redis://127.0.0.1:1');
    try {
      await expect(store(() => 10, 60_000, down).increment(newKey())).rejects.toThrow();
    } finally {
      down.disconnect();
    }
  });

  it('gives a hit back and resets a key in Redis', async () => {
    const s = store(() => 1);
    const k = newKey();
    await s.increment(k);
    await s.decrement(k);
    expect(await counted(k)).toBe(0);
    await s.increment(k);
    await s.resetKey(k);
    expect(await redis.exists(`${prefix}:${k}`)).toBe(0);
    expect((await s.increment(k)).totalHits).toBe(1);
  });
});
