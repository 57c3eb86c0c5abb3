import { backoffMs } from '@rolelink/wire-types/backoff';
import { DEFAULT_RETRY, parseRetryAfter, retryBackoff } from './retry';

describe('Retry-After and backoff', () => {
  it('reads Retry-After as seconds or as an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('doubles the backoff ceiling per attempt from baseDelayMs up to maxDelayMs (full jitter below it)', () => {
    const top = () => 0.999999;
    const backoff = retryBackoff(DEFAULT_RETRY);
    expect(backoffMs(backoff, 0, top)).toBe(249);
    expect(backoffMs(backoff, 2, top)).toBe(999);
    expect(backoffMs(backoff, 10, top)).toBe(7999);
    expect(backoffMs(backoff, 3, () => 0)).toBe(0);
  });
});
