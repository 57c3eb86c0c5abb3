import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@rolelink/runtime';
import type { ChangeMetrics, SliceResult } from './slice-result';

type Failure = 'not_in_guild' | 'missing_permission' | 'failed';

/** What one slice of a link's sync did: the fields of its log line. */
export type SliceTally = {
  guildId?: string;
  roleId?: string;
  adds: number;
  removes: number;
  failures: Record<Failure, number>;
  /**
   * 429 answers the platform gave this slice's calls and the retry-after they announced in total. The
   * shared limiter's own short waits before a call are not reported by the platform client; a wait too
   * long to sleep through ends the slice as `yielded` with reason `rate_limited`.
   */
  http429: { count: number; retry_after_ms: number };
  /** Set when the slice did not sync: the link is gone, or paused, disabled or awaiting its first list. */
  skipped?: { result: 'deleted' } | { result: 'inactive'; reason: string };
  /** The last pass this slice brought to the end of the list. */
  pass?: { calls: number; adds: number; duration_ms: number | null };
};

export function newSliceTally(): SliceTally {
  return {
    adds: 0,
    removes: 0,
    failures: { not_in_guild: 0, missing_permission: 0, failed: 0 },
    http429: { count: 0, retry_after_ms: 0 },
  };
}

/** Counts each platform answer into the tally and passes it on to the metrics. */
export function countingChanges(tally: SliceTally, metrics?: ChangeMetrics): ChangeMetrics {
  return {
    change(action, result) {
      if (result === 'applied') tally[action === 'add' ? 'adds' : 'removes']++;
      else if (result in tally.failures) tally.failures[result as Failure]++;
      metrics?.change(action, result);
    },
  };
}

// The platform client is shared by every job of the process and reports 429s through one event; the
// async context tells which slice made the call.
const current = new AsyncLocalStorage<SliceTally>();

export function withSliceTally<T>(tally: SliceTally, work: () => Promise<T>): Promise<T> {
  return current.run(tally, work);
}

/** For the platform client's `rateLimited` event (main.ts): counts the 429 towards the slice that made the call. */
export function noteRateLimited(retryAfterMs: number): void {
  const tally = current.getStore();
  if (!tally) return;
  tally.http429.count++;
  tally.http429.retry_after_ms += Math.round(retryAfterMs);
}

const RESULT = { done: 'finished', continue: 'continues', yield: 'yielded' } as const;

/**
 * One line per slice at info. A slice that made no call and whose pass changed nothing (nothing to do,
 * an inactive or deleted link, the link busy in another job) writes at debug: syncs are enqueued often
 * (list writes, the outbox sweeper, the reconcile) and those lines would bury the ones that changed roles. A slice that threw
 * writes at warn (the job's failure is logged by the worker with the error).
 */
export function writeSliceLine(
  logger: Logger,
  ids: { jobId?: string; linkId: string },
  tally: SliceTally,
  result: SliceResult | undefined,
  durationMs: number,
): void {
  const failures = tally.failures.not_in_guild + tally.failures.missing_permission + tally.failures.failed;
  const calls = tally.adds + tally.removes + failures + tally.http429.count;
  const outcome = !result ? 'failed' : (tally.skipped?.result ?? RESULT[result.kind]);
  const idle =
    calls === 0 &&
    (tally.skipped ||
      (result?.kind === 'done' && !tally.pass?.calls) ||
      (result?.kind === 'yield' && result.reason === 'link_busy'));
  const { skipped, pass, ...counts } = tally;
  logger.log(!result ? 'warn' : idle ? 'debug' : 'info', 'sync slice', {
    ...ids,
    ...counts,
    result: outcome,
    ...(skipped?.result === 'inactive' && { reason: skipped.reason }),
    ...(result?.kind === 'yield' && { reason: result.reason, delay_ms: Math.round(result.delayMs) }),
    ...(pass && { pass }),
    duration_ms: Math.round(durationMs),
  });
}
