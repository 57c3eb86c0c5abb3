import { backoffExpression, type Backoff } from '@rolelink/wire-types/backoff';
import { compactJournal } from '../list/list-changes.repo';
import type { Queryable } from '../client/queryable';
import { fromStoredText, storedText, toStored } from '../client/user-id';

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
    [linkId, applied.seq.toString(), applied.cutoff === null ? null : storedText(applied.cutoff), applied.limit],
  );
  await compactJournal(db, linkId, applied.seq);
}

/** A link's pass over its list, persisted between job slices and across crashes (link_sync_state). */
export type PassState = {
  passSeq: bigint;
  /** Last user id finished; null when no pass is in progress. */
  cursor: bigint | null;
  passStartedAt: Date | null;
  desiredSeen: number;
  appliedSeen: number;
  changes: number;
  adds: number;
  /** Every change (addition or removal) the walk had to make when it started. */
  passPending: number;
  baseApplied: number;
  nextRetryAt: Date | null;
  backoffUntil: Date | null;
  backoffCount: number;
  /** Milliseconds of link back-off left, per PostgreSQL's clock. */
  backoffLeftMs: number;
  /** Last journal sequence on the platform; null until the link's first walk has finished. */
  journalSeq: bigint | null;
  /** Synced limit and boundary applied (during a walk: the walk's own, fixed at its start). */
  appliedLimit: number | null;
  appliedCutoff: bigint | null;
};

export async function loadPass(db: Queryable, linkId: string): Promise<PassState> {
  await db.query('INSERT INTO link_sync_state (link_id) VALUES ($1) ON CONFLICT DO NOTHING', [linkId]);
  const { rows } = await db.query<{
    pass_seq: string;
    cursor: string | null;
    pass_started_at: Date | null;
    desired_seen: number;
    applied_seen: number;
    changes: number;
    adds: number;
    pass_pending: number;
    base_applied: number;
    next_retry_at: Date | null;
    backoff_until: Date | null;
    backoff_count: number;
    backoff_left_ms: number;
    journal_seq: string | null;
    applied_limit: number | null;
    applied_cutoff: string | null;
  }>(
    `SELECT pass_seq::text, cursor::text, pass_started_at, desired_seen, applied_seen, changes, adds, pass_pending, base_applied,
            next_retry_at, backoff_until, backoff_count, journal_seq::text, applied_limit, applied_cutoff::text,
            GREATEST(0, EXTRACT(EPOCH FROM (backoff_until - localtimestamp(3))) * 1000)::float8 AS backoff_left_ms
       FROM link_sync_state WHERE link_id = $1`,
    [linkId],
  );
  const r = rows[0]!;
  return {
    passSeq: BigInt(r.pass_seq),
    cursor: r.cursor === null ? null : fromStoredText(r.cursor),
    passStartedAt: r.pass_started_at,
    desiredSeen: r.desired_seen,
    appliedSeen: r.applied_seen,
    changes: r.changes,
    adds: r.adds,
    passPending: r.pass_pending,
    baseApplied: r.base_applied,
    nextRetryAt: r.next_retry_at,
    backoffUntil: r.backoff_until,
    backoffCount: r.backoff_count,
    backoffLeftMs: r.backoff_left_ms ?? 0,
    journalSeq: r.journal_seq === null ? null : BigInt(r.journal_seq),
    appliedLimit: r.applied_limit,
    appliedCutoff: r.applied_cutoff === null ? null : fromStoredText(r.applied_cutoff),
  };
}

/**
 * Starts a walk answering `seq`. Its synced boundary (limit and cutoff) is fixed for the whole walk, so
 * every range is judged by one rule; list changes after `seq` are the journal's, applied against the
 * boundary that then holds.
 */
export async function startPass(
  db: Queryable,
  linkId: string,
  seq: bigint,
  baseApplied: number,
  boundary: { limit: number; cutoff: bigint | null },
  pending: number,
): Promise<void> {
  await db.query(
    `UPDATE link_sync_state SET pass_seq = $2, cursor = ${toStored('0')}, pass_started_at = clock_timestamp(), desired_seen = 0, applied_seen = 0,
            changes = 0, adds = 0, base_applied = $3, next_retry_at = NULL, applied_limit = $4, applied_cutoff = $5, pass_pending = $6,
            updated_at = clock_timestamp()
      WHERE link_id = $1`,
    [
      linkId,
      seq.toString(),
      baseApplied,
      boundary.limit,
      boundary.cutoff === null ? null : storedText(boundary.cutoff),
      pending,
    ],
  );
}

/** Records a finished range: the cursor moves past it and its counts join the pass's. */
export async function advancePass(
  db: Queryable,
  linkId: string,
  step: { cursor: bigint; desired: number; applied: number; changes: number; adds: number; nextRetryAt: Date | null },
): Promise<void> {
  await db.query(
    `UPDATE link_sync_state SET cursor = $2, desired_seen = desired_seen + $3, applied_seen = applied_seen + $4,
            changes = changes + $5, adds = adds + $6,
            next_retry_at = CASE WHEN $7::timestamp IS NULL THEN next_retry_at ELSE LEAST(COALESCE(next_retry_at, $7::timestamp), $7::timestamp) END,
            updated_at = clock_timestamp()
      WHERE link_id = $1`,
    [linkId, storedText(step.cursor), step.desired, step.applied, step.changes, step.adds, step.nextRetryAt],
  );
}

/** Calls made in a range the slice did not finish (it is scanned again): they still count towards the rate. */
export async function countCalls(db: Queryable, linkId: string, changes: number, adds: number): Promise<void> {
  if (!changes) return;
  await db.query('UPDATE link_sync_state SET changes = changes + $2, adds = adds + $3 WHERE link_id = $1', [
    linkId,
    changes,
    adds,
  ]);
}

/**
 * An unfinished walk is dropped (the link went inactive). The journal entries it was to cover may be
 * compacted already, so the link walks again when it is active again.
 */
export async function abandonPass(db: Queryable, linkId: string): Promise<void> {
  await db.query(
    `UPDATE link_sync_state SET journal_seq = CASE WHEN cursor IS NULL THEN journal_seq END, cursor = NULL, updated_at = clock_timestamp()
      WHERE link_id = $1`,
    [linkId],
  );
}

/** Missing permissions on the role: stop hammering it, 1 min doubling to 1 h. */
export const LINK_BACKOFF: Backoff = { firstMs: 60_000, maxMs: 3_600_000 };

/** Counts one more back-off of the link and sets its end. Returns the back-off in ms. */
export async function backOffLink(db: Queryable, linkId: string): Promise<number> {
  // SET reads the count before this back-off (step 0 for the first); RETURNING reads it after.
  const { rows } = await db.query<{ ms: number }>(
    `UPDATE link_sync_state SET backoff_count = backoff_count + 1,
            backoff_until = localtimestamp(3) + make_interval(secs => ${backoffExpression('sql', LINK_BACKOFF, 'backoff_count')} / 1000),
            updated_at = clock_timestamp()
      WHERE link_id = $1
      RETURNING (${backoffExpression('sql', LINK_BACKOFF, 'backoff_count - 1')})::float8 AS ms`,
    [linkId],
  );
  return rows[0]?.ms ?? LINK_BACKOFF.firstMs;
}

export async function clearBackoff(db: Queryable, linkId: string): Promise<void> {
  await db.query(
    'UPDATE link_sync_state SET backoff_until = NULL, backoff_count = 0 WHERE link_id = $1 AND backoff_count > 0',
    [linkId],
  );
}

/** A link whose row is gone: its pass state is an orphan (the sync job just completes). */
export async function deleteSyncState(db: Queryable, linkId: string): Promise<void> {
  await db.query('DELETE FROM link_sync_state WHERE link_id = $1', [linkId]);
}

/** The walk reached the end of the list: no pass is in progress any more. */
export async function clearPassCursor(db: Queryable, linkId: string): Promise<void> {
  await db.query('UPDATE link_sync_state SET cursor = NULL, updated_at = clock_timestamp() WHERE link_id = $1', [
    linkId,
  ]);
}
