import { SlidingCounter } from './sliding-counter';

describe('SlidingCounter', () => {
  it('counts the events of the last window and forgets older ones', () => {
    const c = new SlidingCounter(10_000);
    c.add(0);
    c.add(500);
    c.add(4_000, 3);
    expect(c.count(9_999)).toBe(5);
    expect(c.count(10_500)).toBe(3);
    expect(c.count(13_999)).toBe(3);
    expect(c.count(14_000)).toBe(0);
  });

  it('reuses slots when the same position comes around again', () => {
    const c = new SlidingCounter(3_000);
    c.add(1_000);
    expect(c.add(4_000)).toBe(1);
    expect(c.add(4_100)).toBe(2);
  });
});
