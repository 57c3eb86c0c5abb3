import type { Pool, PoolClient } from 'pg';
import type { LinkContext } from './link-context';
import type { PassState } from './pass-state';

type Queryable = Pick<Pool | PoolClient, 'query'>;

/** Changes per second over the pass so far (null before the first call): the ETA is pending ÷ rate. */
export function passRate(pass: Pick<PassState, 'changes' | 'passStartedAt'>, nowMs: number): number | null {
  if (!pass.passStartedAt || pass.changes < 1) return null;
  const seconds = Math.max(0.001, (nowMs - pass.passStartedAt.getTime()) / 1000);
  return pass.changes / seconds;
}

/**
 * Progress while a pass is under way: the applied count of the last finished pass plus what this
 * pass added, bounded by the synced set's size; exact counts replace it when the pass ends.
 */
export function interimCounts(link: Pick<LinkContext, 'userCount' | 'syncedLimit'>, pass: Pick<PassState, 'baseApplied' | 'adds'>): { applied: number; pending: number } {
  const desired = Math.min(link.userCount, link.syncedLimit);
  const applied = Math.min(desired, pass.baseApplied + pass.adds);
  return { applied, pending: Math.max(0, desired - applied) };
}

export async function writeProgress(db: Queryable, linkId: string, counts: { applied: number; pending: number }, rate: number | null): Promise<void> {
  await db.query(
    `UPDATE role_link SET applied_count = $2, pending_count = $3, sync_rate_per_sec = COALESCE($4, sync_rate_per_sec), last_sync_at = clock_timestamp()
      WHERE id = $1`,
    [linkId, counts.applied, counts.pending, rate],
  );
}

/**
 * The pass reached the end of the list: exact counts, and the outbox marks the sequence it answered as
 * done (never lowering it). The API's sweeper re-enqueues links whose wanted sequence is still ahead.
 */
export async function finishPass(db: Queryable, linkId: string, pass: Pick<PassState, 'passSeq' | 'desiredSeen' | 'appliedSeen'>, rate: number | null): Promise<void> {
  await db.query(
    `UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2), applied_count = $3, pending_count = $4,
            sync_rate_per_sec = COALESCE($5, sync_rate_per_sec), last_sync_at = clock_timestamp()
      WHERE id = $1`,
    [linkId, pass.passSeq.toString(), pass.appliedSeen, Math.max(0, pass.desiredSeen - pass.appliedSeen), rate],
  );
  await db.query('UPDATE link_sync_state SET cursor = NULL, updated_at = clock_timestamp() WHERE link_id = $1', [linkId]);
}

/** An inactive link (paused, disabled, awaiting its first list) has nothing to do: its outbox is answered. */
export async function markIdle(db: Queryable, linkId: string, wantedSeq: bigint): Promise<void> {
  await db.query('UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2) WHERE id = $1', [linkId, wantedSeq.toString()]);
}
