import { workerConnection } from '@rolelink/queue';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { BudgetShare, SPARE_BELOW } from './budget-share';

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
async function takesInOneWindow(budget: BudgetShare): Promise<number> {
  for (;;) {
    await new Promise((r) => setTimeout(r, budget.windowMs - (Date.now() % budget.windowMs) + 5));
    const window = Math.floor(Date.now() / budget.windowMs);
    let n = 0;
    while (await budget.take()) n++;
    if (Math.floor(Date.now() / budget.windowMs) === window) return n;
  }
}

describe('BudgetShare (a share of the global limit: the drift poll’s, the notifications’; across workers)', () => {
  it('always grants the floor, and the ceiling only while the global budget has room', async () => {
    let load = 0;
    const budget = new BudgetShare(redis, `${prefix}:a`, {
      floorPerSecond: 2,
      maxPerSecond: 10,
      globalLoad: () => Promise.resolve(load),
    });
    expect(budget.windowMs).toBe(1_000);
    expect(await takesInOneWindow(budget)).toBe(10);
    load = SPARE_BELOW; // syncs use half the global limit: the floor only
    expect(await takesInOneWindow(budget)).toBe(2);
  });

  it('is shared: two workers together get one share', async () => {
    const key = `${prefix}:b`;
    const a = new BudgetShare(redis, key, { floorPerSecond: 3, maxPerSecond: 3 });
    const b = new BudgetShare(redis, key, { floorPerSecond: 3, maxPerSecond: 3 });
    for (;;) {
      await new Promise((r) => setTimeout(r, a.windowMs - (Date.now() % a.windowMs) + 5));
      const window = Math.floor(Date.now() / a.windowMs);
      const granted = (await Promise.all([a.take(), b.take(), a.take(), b.take(), a.take()])).filter(Boolean).length;
      if (Math.floor(Date.now() / a.windowMs) === window) return expect(granted).toBe(3);
    }
  });

  it('acquire() waits for the next window once this one is spent', async () => {
    const budget = new BudgetShare(redis, `${prefix}:d`, { floorPerSecond: 2, maxPerSecond: 2 });
    for (;;) {
      await new Promise((r) => setTimeout(r, budget.windowMs - (Date.now() % budget.windowMs) + 5));
      const window = Math.floor(Date.now() / budget.windowMs);
      while (await budget.take());
      if (Math.floor(Date.now() / budget.windowMs) !== window) continue; // the window turned while spending it
      await budget.acquire();
      return expect(Math.floor(Date.now() / budget.windowMs)).toBeGreaterThan(window);
    }
  });

  it('stretches its window so a floor below one per second still grants one', () => {
    expect(new BudgetShare(redis, `${prefix}:c`, { floorPerSecond: 0.25, maxPerSecond: 1 }).windowMs).toBe(4_000);
  });
});
