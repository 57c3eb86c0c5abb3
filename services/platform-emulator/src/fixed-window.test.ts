import { FixedWindow } from './fixed-window';

describe('FixedWindow', () => {
  it('allows the limit, refuses the next request, and reports the time left in the window', () => {
    const w = new FixedWindow({ limit: 3, windowMs: 1000 });
    expect(w.take(5000)).toMatchObject({ allowed: true, remaining: 2, resetAt: 6000, resetAfterMs: 1000 });
    expect(w.take(5100).remaining).toBe(1);
    expect(w.take(5200).remaining).toBe(0);
    expect(w.take(5400)).toMatchObject({ allowed: false, remaining: 0, resetAfterMs: 600 });
  });

  it('opens the next window at the first request after the reset, not on a fixed grid', () => {
    const w = new FixedWindow({ limit: 1, windowMs: 1000 });
    w.take(0);
    expect(w.take(999).allowed).toBe(false);
    expect(w.take(2500)).toMatchObject({ allowed: true, resetAt: 3500 });
    expect(w.take(3499).allowed).toBe(false);
  });

  it('peeks without spending a request', () => {
    const w = new FixedWindow({ limit: 2, windowMs: 1000 });
    expect(w.peek(0)).toMatchObject({ remaining: 2, resetAfterMs: 1000 });
    w.take(0);
    expect(w.peek(300)).toMatchObject({ remaining: 1, resetAfterMs: 700 });
    expect(w.take(300).remaining).toBe(0);
  });
});
