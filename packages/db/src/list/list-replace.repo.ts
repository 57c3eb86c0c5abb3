import type { PoolClient } from 'pg';
import { isLargeRemoval, type ShrinkBaseline } from '@rolelink/domain';
import {
  findConfirmation,
  recordHeldChange,
  REMOVAL_SAMPLE,
  spendConfirmation,
  type HeldChange,
} from './held-changes.repo';
import { lockLink } from '../links/links.repo';
import { JOURNAL_MAX_USERS, journalAt } from './list-changes.repo';
import { setReplaceExpiries } from './list-expiry.repo';
import { buildNewList, withoutHashAggregate, type NewList, type ReplaceSource } from './new-list';
import { inTransaction, type Queryable } from '../client/queryable';
import { fromStored } from '../client/user-id';

export type { ReplaceSource } from './new-list';

export type ReplaceOutcome =
  | { kind: 'replaced'; userCount: number; listVersion: string }
  | { kind: 'version-mismatch'; listVersion: string }
  | { kind: 'over-limit'; next: number }
  /** `against`: what the removals were counted from (a hand-over's first list: the role's holders). */
  | { kind: 'held'; change: HeldChange; against: ShrinkBaseline; note?: string }
  | { kind: 'upload-not-found' }
  | { kind: 'link-not-found' };

/** `ifMatch`: the list versions the caller accepts (If-Match); absent, any. */
export type ReplaceInput = {
  linkId: string;
  source: ReplaceSource;
  storedLimit: number;
  confirm?: string;
  ifMatch?: readonly string[];
};

/**
 * Replaces a link's whole list atomically (PUT and upload commit, spec 4.1 rules 2 and 5, 3.2, 3.3).
 * Every set operation runs in SQL, so Node never holds more than one PUT body; a 30M-ID commit never
 * enters Node at all. The link row is locked first: concurrent writers of one link queue up and each
 * list wins whole.
 *
 * Two ways to write, chosen under that lock:
 * - The list is empty and nothing has to be compared (no hand-over baseline; for an upload, the staged
 *   count is within the stored limit, so the deduplicated count is too): the deduplicated source is
 *   inserted sorted, a staged upload straight from staging (the first upload of a big list is read once
 *   and no copy of it is built), a PUT from its new_list.
 * - Otherwise the new list is built in `new_list` (new-list.ts), the removals are measured for the shrink
 *   rule, then the rows that left are deleted and only the rows that are new are inserted. new_list
 *   holds each id once, so its row count is the new count (the stored limit and the shrink rule read it).
 *
 * Rows are inserted without ON CONFLICT: every writer of a link's list (this, single adds) holds the
 * link row's lock, and link creation writes its rows before the token exists, so a row this transaction
 * did not see cannot appear. Speculative insertion would double the per-row cost (EXPLAIN: 3 WAL records
 * per row instead of 2); should a duplicate ever appear, the unique key fails the transaction and
 * nothing is written.
 */
export function replaceList(db: Queryable, input: ReplaceInput): Promise<ReplaceOutcome> {
  return inTransaction(db, async (c): Promise<ReplaceOutcome> => {
    const link = await lockLink(c, input.linkId);
    if (!link) return { kind: 'link-not-found' };
    // Compared under the lock, so no write can land between the check and this one.
    if (input.ifMatch && !input.ifMatch.includes(link.listVersion))
      return { kind: 'version-mismatch', listVersion: link.listVersion };
    let staged = 0;
    if (input.source.kind === 'upload') {
      const upload = await lockOpenUpload(c, input.linkId, input.source.uploadId);
      if (!upload) return { kind: 'upload-not-found' };
      staged = upload.users;
    }
    const empty = link.userCount === 0 && !(await hasRows(c, input.linkId));
    const baseline = link.firstListAt === null && link.userCount === 0 ? await handoverHolders(c, input.linkId) : 0;
    const bounded =
      input.source.kind === 'ids' ? input.source.ids.length <= input.storedLimit : staged <= input.storedLimit;

    // The link's first full list (hand-over baseline or fast path) is applied by a walk, not the journal.
    const firstList = link.firstListAt === null;
    let next: number;
    let listVersion: string;
    if (empty && baseline === 0 && bounded) {
      const { seq, listVersion: version } = await bumpList(c, input.linkId);
      listVersion = version;
      next = await insertFirstList(c, input.linkId, input.source);
      await journalAt(c, input.linkId, seq, 'walk');
    } else {
      const built = await buildNewList(c, input.linkId, input.source);
      const size = built.rows;
      // Throwing rolls back, which keeps staging untouched (spec 3.2: 400, staging preserved).
      if (size > input.storedLimit) throw new OverLimit(size);
      // An untrusted link's removals are counted first, for the shrink rule (a hand-over's first list's
      // against the role's holders). A trusted link is never held: its DELETE counts them as it writes,
      // which spares it a join of the whole list.
      const measured =
        link.trusted && baseline === 0 ? null : await measureRemovals(c, input.linkId, link.userCount, baseline);
      if (!link.trusted && measured) {
        if (isLargeRemoval(measured.previous, size, measured.removals)) {
          const { previous, removals } = measured;
          const confirmation = await findConfirmation(c, input.linkId, input.confirm);
          if (!confirmation || 'invalid' in confirmation) {
            // A held attempt writes only its record (for the dashboard's Apply removals) and the owner's notification.
            const removalSample = await leftOut(c, input.linkId, baseline > 0, REMOVAL_SAMPLE);
            const change = await recordHeldChange(c, input.linkId, { previous, next: size, removals, removalSample });
            return {
              kind: 'held',
              change,
              against: baseline > 0 ? 'role_holders' : 'list',
              note: confirmation && 'invalid' in confirmation ? confirmation.invalid : undefined,
            };
          }
          await spendConfirmation(c, confirmation.changeId);
        }
      }
      const { seq, listVersion: version } = await bumpList(c, input.linkId);
      listVersion = version;
      // Small diffs are journaled per user; a large one costs less as one walk than as journal rows.
      const bound = journalBound(firstList, link.userCount, size);
      const removed =
        measured?.listRemovals === 0
          ? 0
          : await deleteLeft(
              c,
              input.linkId,
              seq,
              bound,
              await removalsReach(c, input.linkId, bound, link.userCount, built, measured),
            );
      const journaled = removed < bound;
      const added = await insertNew(c, input.linkId, !empty, journaled ? seq : null, input.source.kind === 'ids');
      if (!journaled) await journalAt(c, input.linkId, seq, 'walk');
      else if (removed === 0 && added === 0) await journalAt(c, input.linkId, seq, 'link');
      next = size;
    }
    await c.query('UPDATE role_link SET user_count = $2 WHERE id = $1', [input.linkId, next]);
    await setReplaceExpiries(c, input.linkId, input.source);
    if (input.source.kind === 'upload') {
      // Staged rows are deleted later by the GC in batches; closing the session is what makes it 404.
      await c.query('UPDATE upload_session SET closed_at = now() WHERE id = $1', [input.source.uploadId]);
    }
    return { kind: 'replaced', userCount: next, listVersion };
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

async function lockOpenUpload(c: PoolClient, linkId: string, uploadId: string): Promise<{ users: number } | null> {
  const { rows } = await c.query<{ users: number }>(
    `SELECT users FROM upload_session WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now() FOR UPDATE`,
    [uploadId, linkId],
  );
  return rows[0] ?? null;
}

/** Whether the link has any row (the counter is kept in step, but an index probe costs nothing). */
export async function hasRows(c: PoolClient, linkId: string): Promise<boolean> {
  const { rows } = await c.query<{ any: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM link_user WHERE link_id = $1) AS any',
    [linkId],
  );
  return rows[0]!.any;
}

/** The fast path's write: the deduplicated source, sorted (B-tree appends), into the empty list; returns the rows written. */
async function insertFirstList(c: PoolClient, linkId: string, source: ReplaceSource): Promise<number> {
  if (source.kind === 'ids') {
    await buildNewList(c, linkId, source);
    return insertNew(c, linkId, false, null, true);
  }
  const r = await withoutHashAggregate(c, () =>
    c.query(
      'INSERT INTO link_user (link_id, user_id) SELECT DISTINCT $1::bigint, user_id FROM upload_staged WHERE link_id = $1 AND upload_id = $2 ORDER BY 2',
      [linkId, source.uploadId],
    ),
  );
  return r.rowCount ?? 0;
}

/**
 * previous/removals for the shrink rule. A hand-over link's first list is judged against the role's
 * current holders (the bot's applied record, snapshotted at creation), not against its empty list.
 */
export type Removals = { previous: number; removals: number; listRemovals: number };

/**
 * The fewest list removals that make a replace of `userCount` rows by `next` too large to journal
 * (removals + adds > JOURNAL_MAX_USERS, adds = next - userCount + removals); 0 when no count can tell
 * (a first list is never journaled; a growth beyond the journal's size never is either).
 */
export function journalBound(firstList: boolean, userCount: number, next: number): number {
  if (firstList) return 0;
  return Math.max(0, Math.floor((JOURNAL_MAX_USERS - next + userCount) / 2) + 1);
}

export async function measureRemovals(
  c: PoolClient,
  linkId: string,
  userCount: number,
  handoverHolderCount: number,
): Promise<Removals> {
  if (handoverHolderCount > 0) {
    const { rows } = await c.query<{ removals: string }>(
      `SELECT count(*) AS removals FROM applied_member a WHERE a.link_id = $1 AND a.outcome = 'applied'
         AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = a.user_id)`,
      [linkId],
    );
    return { previous: handoverHolderCount, removals: Number(rows[0]!.removals), listRemovals: 0 };
  }
  if (userCount === 0) return { previous: 0, removals: 0, listRemovals: 0 };
  // A semi-join: a PUT's new_list may hold an id twice (new-list.ts), which must not count twice.
  const { rows } = await c.query<{ kept: string }>(
    'SELECT count(*) AS kept FROM link_user u WHERE u.link_id = $1 AND EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = u.user_id)',
    [linkId],
  );
  const kept = Number(rows[0]!.kept);
  return { previous: userCount, removals: userCount - kept, listRemovals: userCount - kept };
}

/**
 * The first `n` members (by user id) the new list leaves out, from the same baseline measureRemovals
 * counted against: the role's holders for a hand-over's first list, the stored list otherwise.
 */
async function leftOut(c: PoolClient, linkId: string, handover: boolean, n: number): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>(
    handover
      ? `SELECT ${fromStored('a.user_id')} AS id FROM applied_member a WHERE a.link_id = $1 AND a.outcome = 'applied'
           AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = a.user_id) ORDER BY a.user_id LIMIT $2`
      : `SELECT ${fromStored('u.user_id')} AS id FROM link_user u WHERE u.link_id = $1
           AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = u.user_id) ORDER BY u.user_id LIMIT $2`,
    [linkId, n],
  );
  return rows.map((r) => r.id);
}

/** Holders that make a first list a hand-over (0 when the link keeps members or the role had none). */
export async function handoverHolders(c: Queryable, linkId: string): Promise<number> {
  const r = await roleHolders(c, linkId);
  return r && r.memberMode === 'handover' ? r.currentHolders : 0;
}

/**
 * The link's member mode and the role's holders as the bot's applied record has them; before a first list
 * that is the holders recorded at creation. What POST /register tells the plugin (`current_holders`): the
 * same count handoverHolders judges a hand-over's first list against, so the two cannot differ.
 */
export async function roleHolders(
  db: Queryable,
  linkId: string,
): Promise<{ memberMode: 'handover' | 'keep'; currentHolders: number } | null> {
  const { rows } = await db.query<{ mode: 'handover' | 'keep'; holders: string }>(
    `SELECT l.member_mode AS mode,
            (SELECT count(*) FROM applied_member a WHERE a.link_id = l.id AND a.outcome = 'applied') AS holders
     FROM role_link l WHERE l.id = $1`,
    [linkId],
  );
  const r = rows[0];
  return r ? { memberMode: r.mode, currentHolders: Number(r.holders) } : null;
}

/** The write's sequence (for the journal) and the list's new version (the ETag), bumped together; the count is set after the write. */
async function bumpList(c: PoolClient, linkId: string): Promise<{ seq: string; listVersion: string }> {
  const { rows } = await c.query<{ seq: string; listVersion: string }>(
    `UPDATE role_link SET sync_wanted_seq = sync_wanted_seq + 1, list_version = list_version + 1,
       first_list_at = COALESCE(first_list_at, now()), list_replaced_at = now(), updated_at = now() WHERE id = $1
     RETURNING sync_wanted_seq::text AS seq, list_version::text AS "listVersion"`,
    [linkId],
  );
  return rows[0]!;
}

/** Whether a replace's removals reach the journal's bound: known, likely (an estimate), or not known to. */
type Reach = 'known' | 'likely' | 'unknown';

/** The new-list ids an estimate of the removals probes the list for: 256 index look-ups, under a millisecond. */
const REMOVAL_PROBE = 256;

/**
 * Whether the removals will reach `bound` (journalBound), before deleting: known when they were measured
 * (an untrusted link), when nothing can be journaled (bound 0) or when the list shrinks by that much
 * alone; likely when an evenly spaced sample of a PUT's sorted ids, looked up in the list, puts them at
 * twice the bound or more (the sample only picks the faster statement; deleteLeft makes the outcome exact).
 */
async function removalsReach(
  c: PoolClient,
  linkId: string,
  bound: number,
  userCount: number,
  built: NewList,
  measured: Removals | null,
): Promise<Reach> {
  if (bound === 0 || (measured ? measured.listRemovals >= bound : userCount - built.rows >= bound)) return 'known';
  if (measured || userCount < bound || !built.ids || built.rows === 0) return 'unknown';
  const probed = Math.min(REMOVAL_PROBE, built.rows);
  const { rows } = await c.query<{ kept: number }>(
    'SELECT count(*)::int AS kept FROM link_user WHERE link_id = $1 AND user_id = ANY ($2::bigint[])',
    [linkId, built.ids.sample(probed)],
  );
  const removals = userCount - (rows[0]!.kept / probed) * built.rows;
  return removals >= 2 * bound ? 'likely' : 'unknown';
}

/** The list's rows the new list leaves out, deleted (deleteLeft runs it plain or returning them). */
const DELETE_LEFT =
  'DELETE FROM link_user u WHERE u.link_id = $1 AND NOT EXISTS (SELECT 1 FROM new_list n WHERE n.user_id = u.user_id)';

/**
 * Deletes the list's rows the new list leaves out and returns how many; fewer than `bound` (journalBound),
 * journals each as `remove` under `seq` in the same statement, the diff computed once by the write that
 * computes it anyway; otherwise nothing is journaled (the caller journals a walk).
 *
 * Journaling needs the rows back (RETURNING), and that costs a large DELETE about a third more
 * (docs/benchmarks.md, "The large DELETE without RETURNING"). So when the removals are known to reach the
 * bound the DELETE returns nothing; when they are only likely to, it runs without RETURNING inside a
 * savepoint and, should it delete fewer than the bound after all, is rolled back and run again
 * journaling. The bound is tested once, as the journal's one-time filter: as a join condition it walked
 * all the deleted rows for nothing.
 */
async function deleteLeft(c: PoolClient, linkId: string, seq: string, bound: number, reach: Reach): Promise<number> {
  const plain = async () => (await c.query(DELETE_LEFT, [linkId])).rowCount ?? 0;
  if (reach === 'known') return plain();
  if (reach === 'likely') {
    await c.query('SAVEPOINT delete_left');
    const removed = await plain();
    if (removed >= bound) {
      await c.query('RELEASE SAVEPOINT delete_left');
      return removed;
    }
    await c.query('ROLLBACK TO SAVEPOINT delete_left; RELEASE SAVEPOINT delete_left');
  }
  const { rows } = await c.query<{ removed: number }>(
    `WITH gone AS (${DELETE_LEFT} RETURNING u.user_id),
          counted AS (SELECT count(*)::int AS removed FROM gone),
          journal AS (INSERT INTO list_change (link_id, seq, user_id, op) SELECT $1, $2, user_id, 'remove' FROM gone WHERE (SELECT removed FROM counted) < $3)
     SELECT removed FROM counted`,
    [linkId, seq, bound],
  );
  return rows[0]!.removed;
}

/**
 * Inserts the new list's rows the list lacks and returns how many; with `journalSeq`, journals each as
 * `add` under it in the same statement. The rows go in sorted (B-tree inserts in key order; a PUT's
 * new_list is in that order already and the sort only checks it); see replaceList on why no ON CONFLICT.
 * `inMemory` (a PUT's list, at most the body's limit): the sort gets the memory to stay off disk
 * (withoutHashAggregate; a PUT's rows need a little more than PostgreSQL's default). A staged upload's
 * statement is left as the 30M-row commit was measured.
 */
async function insertNew(
  c: PoolClient,
  linkId: string,
  hadRows: boolean,
  journalSeq: string | null,
  inMemory: boolean,
): Promise<number> {
  const journal = (write: string) =>
    journalSeq === null
      ? write
      : `WITH w AS (${write} RETURNING user_id) INSERT INTO list_change (link_id, seq, user_id, op) SELECT $1, ${BigInt(journalSeq)}, user_id, 'add' FROM w`;
  const sql = journal(
    hadRows
      ? `INSERT INTO link_user (link_id, user_id) SELECT $1::bigint, n.user_id FROM new_list n
         WHERE NOT EXISTS (SELECT 1 FROM link_user u WHERE u.link_id = $1 AND u.user_id = n.user_id) ORDER BY 2`
      : `INSERT INTO link_user (link_id, user_id) SELECT $1::bigint, user_id FROM new_list ORDER BY 2`,
  );
  const r = inMemory ? await withoutHashAggregate(c, () => c.query(sql, [linkId])) : await c.query(sql, [linkId]);
  return r.rowCount ?? 0;
}
