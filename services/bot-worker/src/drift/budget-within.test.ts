import { budgetWithin } from './drift-poll';

// budgetWithin on a logical clock (jest's fake Date and timers): windows of 1 s, as a BudgetShare's at a
// floor of 1/s or more, and a take whose Redis round trip lasts `rttMs`.
const WINDOW_MS = 1_000;
const nextWindowInMs = (now = Date.now()) => WINDOW_MS - (now % WINDOW_MS);

/** A budget whose windows before `grantsFrom` are spent; each take takes `rttMs` of clock. */
function budget(grantsFrom: number, rttMs: number) {
  const asked: number[] = [];
  return {
    asked,
    nextWindowInMs,
    take: () => {
      const at = Date.now();
      asked.push(at);
      jest.setSystemTime(at + rttMs);
      return Promise.resolve(Math.floor(at / WINDOW_MS) * WINDOW_MS >= grantsFrom);
    },
  };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('budgetWithin', () => {
  it('asks the next window at once when the refusing take ended in it (before: the tick gave up with that window unspent)', async () => {
    jest.setSystemTime(10_900);
    const b = budget(11_000, 150); // refused in [10 000, 11 000), answered at 11 050
    await expect(budgetWithin(b, 11_800)).resolves.toBe(true);
    expect(b.asked).toEqual([10_900, 11_050]);
  });

  it('waits for the next window when it opens before the tick ends', async () => {
    jest.setSystemTime(10_200);
    const b = budget(11_000, 5);
    const granted = budgetWithin(b, 11_900);
    await jest.advanceTimersByTimeAsync(800);
    await expect(granted).resolves.toBe(true);
    expect(b.asked).toEqual([10_200, 11_000]);
  });

  it('gives up when the next window opens at or after the tick ends', async () => {
    jest.setSystemTime(10_200);
    const b = budget(11_000, 5);
    await expect(budgetWithin(b, 11_000)).resolves.toBe(false);
    expect(b.asked).toEqual([10_200]);
  });
});
