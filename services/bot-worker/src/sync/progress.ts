import type { PassState } from '@rolelink/db/sync';
import type { LinkContext } from './link-context';

/** Changes per second over the pass so far (null before the first call): the ETA is pending ÷ rate. */
export function passRate(pass: Pick<PassState, 'changes' | 'passStartedAt'>, nowMs: number): number | null {
  if (!pass.passStartedAt || pass.changes < 1) return null;
  const seconds = Math.max(0.001, (nowMs - pass.passStartedAt.getTime()) / 1000);
  return pass.changes / seconds;
}

/**
 * Progress while a pass is under way: the synced set's holders measured when the walk started
 * (`baseApplied`: countDiff's `holding`, so a hand-over's earlier holders count from the first slice)
 * plus what this pass added, bounded by the synced set's size; exact counts replace it when the pass ends. Pending is
 * every change still to make, removals included (else a walk of thousands of removals shows
 * "0 of 50 · less than a minute"): the walk's changes counted at its start less the calls made since,
 * and never fewer than the additions still missing.
 */
export function interimCounts(
  link: Pick<LinkContext, 'userCount' | 'syncedLimit'>,
  pass: Pick<PassState, 'baseApplied' | 'adds' | 'passPending' | 'changes'>,
): { applied: number; pending: number } {
  const desired = Math.min(link.userCount, link.syncedLimit);
  const applied = Math.min(desired, pass.baseApplied + pass.adds);
  return { applied, pending: Math.max(0, desired - applied, pass.passPending - pass.changes) };
}
