import type { Backoff } from '@rolelink/wire-types/backoff';
import type { AbortSignalLike } from '../host-types';

/** When and how long to wait before trying a call again. */

export type RetryOptions = {
  /** Attempts after the first one (default 4). 0 turns retries off. */
  retries: number;
  /** First backoff step; each further step doubles, with full jitter (default 250 ms). */
  baseDelayMs: number;
  /** Cap of one backoff step (default 8 s). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the 429/503 is thrown instead (default 60 s). */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY = {
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
} as const satisfies RetryOptions;

/**
 * The options as the service's one backoff rule (@rolelink/wire-types/backoff, compiled into the package):
 * full jitter spreads the retries of many plugins instead of synchronising them. Retry after attempt `n`
 * (0 = the first call) waits step `n` of it.
 */
export function retryBackoff(options: RetryOptions): Backoff {
  return { firstMs: options.baseDelayMs, maxMs: options.maxDelayMs, jitter: 'full' };
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with whatever reason the caller aborted with, as fetch does
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as above: the caller's abort reason
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
