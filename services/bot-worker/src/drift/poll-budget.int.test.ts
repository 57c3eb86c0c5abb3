import { workerConnection } from '@rolelink/queue';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../../test/support/redis';
import { DriftBudget, SPARE_BELOW } from './poll-budget';

const redis = workerConnection(REDIS_URL, { maxRetriesPerRequest: 3 });
const prefix = testQueuePrefix();
afterAll(async () => {
  await dropPrefix(prefix);
  redis.disconnect();
});

/**
 * Takes until refused, within one window: starts right after a window begins (one no take has touched),
 * and starts over in a later one if the window turned meanwhile.
 */
async function takesInOneWindow(budget: DriftBudget): Promise<number> {
  for (;;) {
    await new Promise((r) => setTimeout(r, budget.windowMs - (Date.now() % budget.windowMs) + 5));
    const window = Math.floor(Date.now() / budget.windowMs);
    let n = 0;
    while (await budget.take()) n++;
    if (Math.floor(Date.now() / budget.windowMs) === window) return n;
  }
}

describe('DriftBudget (the poll’s share of the global limit, across workers)', () => {
  it('always grants the floor, and the ceiling only while the global budget has room', async () => {
    let load = 0;
    const budget = new DriftBudget(redis, `${prefix}:a`, { floorPerSecond: 2, maxPerSecond: 10, globalLoad: () => Promise.resolve(load) });
    expect(budget.windowMs).toBe(1_000);
    expect(await takesInOneWindow(budget)).toBe(10);
    load = SPARE_BELOW; // syncs use half the global limit: the floor only
    expect(await takesInOneWindow(budget)).toBe(2);
  });

  it('is shared: two workers together get one share', async () => {
    const key = `${prefix}:b`;
    const a = new DriftBudget(redis, key, { floorPerSecond: 3, maxPerSecond: 3 });
    const b = new DriftBudget(redis, key, { floorPerSecond: 3, maxPerSecond: 3 });
    for (;;) {
      await new Promise((r) => setTimeout(r, a.windowMs - (Date.now() % a.windowMs) + 5));
      const window = Math.floor(Date.now() / a.windowMs);
      const granted = (await Promise.all([a.take(), b.take(), a.take(), b.take(), a.take()])).filter(Boolean).length;
      if (Math.floor(Date.now() / a.windowMs) === window) return expect(granted).toBe(3);
    }
  });

  it('stretches its window so a floor below one per second still grants one', () => {
    expect(new DriftBudget(redis, `${prefix}:c`, { floorPerSecond: 0.25, maxPerSecond: 1 }).windowMs).toBe(4_000);
  });
});
