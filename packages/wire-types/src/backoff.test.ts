import { backoffExpression, backoffMs } from './backoff';

// The one backoff formula, tested once here; each caller's tests check its own numbers. The SQL and Lua
// forms are evaluated by PostgreSQL and Redis in packages/db/src/backoff.int.test.ts.
describe('the backoff rule', () => {
  const b = { firstMs: 30_000, maxMs: 3_600_000 };

  it('doubles from firstMs per step up to maxMs; a step below 0 is the first', () => {
    expect([0, 1, 2, 6, 7, 8].map((n) => backoffMs(b, n))).toEqual([
      30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000,
    ]);
    expect(backoffMs(b, -1)).toBe(30_000);
  });

  it('stays finite and capped at any step, however large', () => {
    expect(backoffMs(b, 10_000)).toBe(3_600_000);
    expect(backoffMs({ firstMs: 0, maxMs: 10 }, 10_000)).toBe(0);
  });

  it('full jitter waits a uniform part of the step, below it; a fraction adds up to that part of it', () => {
    const top = () => 0.999999;
    expect(backoffMs({ ...b, jitter: 'full' }, 1, top)).toBe(59_999);
    expect(backoffMs({ ...b, jitter: 'full' }, 1, () => 0)).toBe(0);
    expect(backoffMs({ ...b, jitter: 'full' }, 20, () => 0.5)).toBe(1_800_000);
    expect(backoffMs({ ...b, jitter: 0.1 }, 1, () => 0)).toBe(60_000);
    expect(backoffMs({ ...b, jitter: 0.1 }, 1, top)).toBe(66_000);
    expect(backoffMs({ ...b, jitter: 0.1 }, 20, () => 0.5)).toBe(3_780_000);
  });

  it('writes the same formula in SQL and Lua, with literals or expressions as parameters', () => {
    expect(backoffExpression('sql', b, 'attempts')).toBe(
      'LEAST(3600000, 30000 * power(2, LEAST(40, GREATEST(0, attempts))))',
    );
    expect(backoffExpression('lua', { firstMs: 'tonumber(ARGV[4])', maxMs: 'tonumber(ARGV[5])' }, 'n - 1')).toBe(
      'math.min(tonumber(ARGV[5]), tonumber(ARGV[4]) * math.pow(2, math.min(40, math.max(0, n - 1))))',
    );
  });

  it('refuses a parameter that is not a finite number instead of writing it into a statement', () => {
    expect(() => backoffExpression('sql', { firstMs: NaN, maxMs: 1 }, 'n')).toThrow(
      'backoff parameter must be a finite number, got NaN',
    );
    expect(() => backoffExpression('sql', { firstMs: 1, maxMs: Infinity }, 'n')).toThrow('got Infinity');
  });
});
