import type { Pool, PoolClient } from 'pg';
import { isLargeRemoval } from '@rolelink/domain';
import { findConfirmation, recordHeldChange, spendConfirmation, type HeldChange } from './held-changes.repo';
import { lockLink } from './links.repo';
import { inTransaction } from './queryable';

export type ReplaceSource = { kind: 'ids'; ids: readonly string[] } | { kind: 'upload'; uploadId: string };

export type ReplaceOutcome =
  | { kind: 'replaced'; userCount: number }
  | { kind: 'over-limit'; next: number }
  | { kind: 'held'; change: HeldChange; note?: string }
  | { kind: 'upload-not-found' }
  | { kind: 'link-not-found' };

export type ReplaceInput = { linkId: string; source: ReplaceSource; storedLimit: number; confirm?: string };

/** Bound on one array parameter, so a PUT's IDs travel to PostgreSQL in a few batches. */
const BATCH = 50_000;

/**
 * Replaces a link's whole list atomically (PUT and upload commit, spec 4.1 rules 2 and 5, 3.2, 3.3).
 * The new list is built in a temporary table and every set operation runs in SQL, so Node never holds
 * more than one PUT body; a 30M-ID commit never enters Node at all. The link row is locked first:
 * concurrent writers of one link queue up and each list wins whole.
 */
export function replaceList(pool: Pool, input: ReplaceInput): Promise<ReplaceOutcome> {
  return inTransaction(pool, async (c): Promise<ReplaceOutcome> => {
    const link = await lockLink(c, input.linkId);
    if (!link) return { kind: 'link-not-found' };
    if (input.source.kind === 'upload' && !(await lockOpenUpload(c, input.linkId, input.source.uploadId))) {
      return { kind: 'upload-not-found' };
    }
    const next = await buildNewList(c, input.source);
    if (next > input.storedLimit) {
      // Throwing rolls back, which keeps staging untouched (spec 3.2: 400, staging preserved).
      throw new OverLimit(next);
    }
    const { previous, removals, listRemovals } = await measureRemovals(c, input.linkId, link.userCount, link.firstListAt === null);
    if (!link.trusted && isLargeRemoval(previous, next, removals)) {
      const confirmation = await findConfirmation(c, input.linkId, input.confirm);
      if (!confirmation || 'invalid' in confirmation) {
        // The only thing a held attempt writes is its record (for the dashboard's Apply removals).
        const change = await recordHeldChange(c, input.linkId, { previous, next, removals });
        return { kind: 'held', change, note: confirmation && 'invalid' in confirmation ? confirmation.invalid : undefined };
      }
      await spendConfirmation(c, confirmation.changeId);
    }
    await writeNewList(c, input.linkId, listRemovals > 0);
    await c.query(
      `UPDATE role_link SET user_count = $2, sync_wanted_seq = sync_wanted_seq + 1,
         first_list_at = COALESCE(first_list_at, now()), updated_at = now() WHERE id = $1`,
      [input.linkId, next],
    );
    if (input.source.kind === 'upload') {
      // Staged rows are deleted later by the GC in batches; closing the session is what makes it 404.
      await c.query('UPDATE upload_session SET closed_at = now() WHERE id = $1', [input.source.uploadId]);
    }
    return { kind: 'replaced', userCount: next };
  }).catch((err: unknown): ReplaceOutcome => {
    if (err instanceof OverLimit) return { kind: 'over-limit', next: err.next };
    throw err;
  });
}

class OverLimit extends Error {
  constructor(readonly next: number) {
    super('over limit');
  }
}

async function lockOpenUpload(c: PoolClient, linkId: string, uploadId: string): Promise<boolean> {
  const { rowCount } = await c.query(
    `SELECT 1 FROM upload_session WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now() FOR UPDATE`,
    [uploadId, linkId],
  );
  return rowCount === 1;
}

/** Deduplicated new list in `new_list` (temporary, this transaction only); returns its size. */
async function buildNewList(c: PoolClient, source: ReplaceSource): Promise<number> {
  if (source.kind === 'upload') {
    const r = await c.query(
      'CREATE TEMP TABLE new_list ON COMMIT DROP AS SELECT DISTINCT user_id FROM upload_staged WHERE upload_id = $1',
      [source.uploadId],
    );
    await c.query('ANALYZE new_list');
    return r.rowCount ?? 0;
  }
  await c.query('CREATE TEMP TABLE new_list (user_id bigint PRIMARY KEY) ON COMMIT DROP');
  let total = 0;
  for (let i = 0; i < source.ids.length; i += BATCH) {
    const r = await c.query('INSERT INTO new_list SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING', [source.ids.slice(i, i + BATCH)]);
    total += r.rowCount ?? 0;
  }
  await c.query('ANALYZE new_list');
  return total;
}

/**
 * previous/removals for the shrink rule. A hand-over link's first list is judged against the role's
 * current holders (the bot's applied record, snapshotted at creation), not against its empty list.
 */
type Removals = { previous: number; removals: number; listRemovals: number };

async function measureRemovals(c: PoolClient, linkId: string, userCount: number, firstList: boolean): Promise<Removals> {
  const handover = firstList && userCount === 0 ? await handoverBaseline(c, linkId) : null;
  if (handover) return { ...handover, listRemovals: 0 };
  if (userCount === 0) return { previous: 0, removals: 0, listRemovals: 0 };
  const { rows } = await c.query<{ kept: string }>(
    'SELECT count(*) AS kept FROM new_list n JOIN link_user u ON u.link_id = $1 AND u.user_id = n.user_id',
    [linkId],
  );
  const kept = Number(rows[0]!.kept);
  return { previous: userCount, removals: userCount - kept, listRemovals: userCount - kept };
}

async function handoverBaseline(c: PoolClient, linkId: string): Promise<{ previous: number; removals: number } | null> {
  const { rows } = await c.query<{ mode: string; holders: string; removals: string }>(
    `SELECT l.member_mode AS mode,
            (SELECT count(*) FROM applied_member a WHERE a.link_id = l.id AND a.outcome = 'applied') AS holders,
            (SELECT count(*) FROM applied_member a WHERE a.link_id = l.id AND a.outcome = 'applied'
               AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = a.user_id)) AS removals
     FROM role_link l WHERE l.id = $1`,
    [linkId],
  );
  const r = rows[0];
  if (!r || r.mode !== 'handover' || Number(r.holders) === 0) return null;
  return { previous: Number(r.holders), removals: Number(r.removals) };
}

async function writeNewList(c: PoolClient, linkId: string, removesSome: boolean): Promise<void> {
  if (removesSome) {
    await c.query(
      'DELETE FROM link_user u WHERE u.link_id = $1 AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = u.user_id)',
      [linkId],
    );
  }
  // Sorted input keeps B-tree inserts on the rightmost pages; conflicts are the kept users.
  await c.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, user_id FROM new_list ORDER BY user_id ON CONFLICT DO NOTHING`,
    [linkId],
  );
}
