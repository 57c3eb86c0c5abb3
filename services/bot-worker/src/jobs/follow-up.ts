import type { QueueName } from '@rolelink/contracts';
import type { Producer } from '@rolelink/queue';
import type { ReconcileResult } from '../reconcile/reconcile';
import type { SliceResult } from '../sync/slice-result';

/** Wake a yielding job this much before the platform's reset: the limiter waits out the rest inline. */
const EARLY_WAKE_MS = 100;

export type FollowUps = {
  /** Another pass of a link wanted now (a reconcile found it drifted). */
  syncNow: (linkId: string) => Promise<unknown>;
  /**
   * What a sync slice leaves behind: the rest of the pass, a wake-up after a 429, or a scheduled retry.
   * They carry the slice's requestId: the same pass, asked for by the same write.
   */
  afterSlice(linkId: string, result: SliceResult, requestId?: string): Promise<void>;
  /** The next page of a reconcile that ran out of budget. */
  afterReconcile(result: ReconcileResult): Promise<void>;
};

/**
 * The jobs a finished job enqueues. Re-enqueueing a link after each slice that did not finish its pass
 * lets other links have their turn (design: fairness); the dedup rules are the catalog's (jobDedup).
 */
export function followUps(producer: Producer<typeof QueueName.roleSync>): FollowUps {
  const sync = (linkId: string, delayMs: number, dedup: 'wanted' | 'retry', requestId?: string) =>
    producer.add(
      'sync',
      { linkId, ...(requestId !== undefined && { requestId }) },
      { delay: Math.max(0, Math.round(delayMs)), dedup },
    );
  return {
    syncNow: (linkId) => sync(linkId, 0, 'wanted'),
    async afterSlice(linkId, result, requestId) {
      if (result.kind === 'continue') await sync(linkId, 0, 'wanted', requestId);
      else if (result.kind === 'yield')
        await sync(linkId, Math.max(0, result.delayMs - EARLY_WAKE_MS), 'wanted', requestId);
      else if (result.retryInMs !== undefined) await sync(linkId, result.retryInMs, 'retry', requestId);
    },
    async afterReconcile(result) {
      if (result.kind === 'continue')
        await producer.add('reconcile', {}, { delay: Math.round(result.delayMs), dedup: 'continue' });
    },
  };
}
