import { compactJournal } from './list-changes.repo';
import type { Queryable } from './queryable';

/**
 * The journal consumer's position (link_sync_state.journal_seq) and the synced boundary it applied:
 * everything up to `seq` is on the platform, so those journal entries are compacted in the same call.
 * Never moves backwards (a walk and a journal batch may finish in either order).
 */
export async function recordJournalApplied(
  db: Queryable,
  linkId: string,
  applied: { seq: bigint; cutoff: bigint | null; limit: number },
): Promise<void> {
  await db.query(
    `UPDATE link_sync_state SET journal_seq = GREATEST(COALESCE(journal_seq, 0), $2), applied_cutoff = $3, applied_limit = $4,
            updated_at = clock_timestamp()
      WHERE link_id = $1`,
    [linkId, applied.seq.toString(), applied.cutoff === null ? null : applied.cutoff.toString(), applied.limit],
  );
  await compactJournal(db, linkId, applied.seq);
}
