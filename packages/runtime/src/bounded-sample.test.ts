import { boundedSample, COLLECT_TIMEOUT_MS } from './bounded-sample';

// The clock is jest's: the bound is proven by advancing it, not by waiting on a loaded machine.
describe('boundedSample', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives a fresh value when the sample answers in time', async () => {
    const read = boundedSample(() => Promise.resolve(7));
    await expect(read()).resolves.toEqual({ value: 7, fresh: true });
  });

  it('gives the last value, stale, when a sample fails', async () => {
    let fail = false;
    const read = boundedSample(() => (fail ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve(3)));
    await read();
    fail = true;
    await expect(read()).resolves.toEqual({ value: 3, fresh: false });
  });

  it('answers after COLLECT_TIMEOUT_MS with the last value, stale, when a sample hangs, and starts no second one meanwhile', async () => {
    let calls = 0;
    let answer: (v: number) => void = () => undefined;
    const read = boundedSample(() => {
      calls += 1;
      return calls === 1 ? Promise.resolve(1) : new Promise<number>((resolve) => (answer = resolve));
    });
    await read();
    const late = read();
    let settled = false;
    void late.then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(COLLECT_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await expect(late).resolves.toEqual({ value: 1, fresh: false });
    // A second scrape while the first sample still hangs joins it instead of queueing another.
    const again = read();
    await jest.advanceTimersByTimeAsync(COLLECT_TIMEOUT_MS);
    await expect(again).resolves.toEqual({ value: 1, fresh: false });
    expect(calls).toBe(2);
    // When the hung sample finally answers, its value is kept: the next scrape reports it even if its own
    // sample (a third, since none is in flight any more) hangs again.
    answer(5);
    await jest.advanceTimersByTimeAsync(0);
    const next = read();
    await jest.advanceTimersByTimeAsync(COLLECT_TIMEOUT_MS);
    await expect(next).resolves.toEqual({ value: 5, fresh: false });
    expect(calls).toBe(3);
  });

  it('is undefined and stale before any sample succeeded', async () => {
    const read = boundedSample(() => Promise.reject(new Error('down')));
    await expect(read()).resolves.toEqual({ value: undefined, fresh: false });
  });
});
