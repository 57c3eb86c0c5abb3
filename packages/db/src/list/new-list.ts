import type { PoolClient } from 'pg';
import { copyIn } from '../client/copy-in';
import type { ItemExpiries } from './list-expiry.repo';
import { storedIdsCopy, StoredIdsCopy } from './stored-ids-copy';

/** Where a full-list write's new list comes from: a PUT body's ids (and their expiries), or a staged upload. */
export type ReplaceSource =
  | { kind: 'ids'; ids: readonly string[] | StoredIdsCopy; expiries?: ItemExpiries | null }
  | { kind: 'upload'; uploadId: string };

/**
 * What buildNewList wrote to `new_list`: its rows, each a distinct id, so also the size of the list it
 * makes; for a PUT, the same ids in the API's hands too (a sample of them is a cheap estimate).
 */
export type NewList = { rows: number; ids: StoredIdsCopy | null };

/**
 * The new list of a replace (PUT, upload commit, their dry runs) in `new_list`, a temporary table of this
 * transaction with a `user_id` column (stored) and no index: the replace's set operations are hash joins.
 *
 * A PUT's ids are COPYed in, in COPY's binary format, sorted and without repeats (storedIdsCopy writes
 * each stored bigint's 8 bytes, or the API's body reader already did: StoredIdsCopy; PostgreSQL parses
 * nothing). That takes about half the time PostgreSQL spends reading 100,000 ids as one array parameter;
 * the API sorts them for less than PostgreSQL's deduplication cost the replace, and its INSERT
 * then meets the rows already in key order (its ORDER BY checks that in one pass).
 *
 * A staged upload is already in PostgreSQL: its deduplicated rows are selected in (a 30M-row commit
 * needs its count, and staged rows repeat whenever a chunk was resent).
 */
export async function buildNewList(c: PoolClient, linkId: string, source: ReplaceSource): Promise<NewList> {
  let list: NewList;
  // ON COMMIT DROP ends the table with the transaction; inside a caller's transaction (a savepoint) an
  // earlier replace's table would still be there.
  if (source.kind === 'upload') {
    await c.query('DROP TABLE IF EXISTS new_list');
    const r = await withoutHashAggregate(c, () =>
      c.query(
        'CREATE TEMP TABLE new_list ON COMMIT DROP AS SELECT DISTINCT user_id FROM upload_staged WHERE link_id = $1 AND upload_id = $2',
        [linkId, source.uploadId],
      ),
    );
    list = { rows: r.rowCount ?? 0, ids: null };
  } else {
    const copy = source.ids instanceof StoredIdsCopy ? source.ids : storedIdsCopy(source.ids);
    await c.query('DROP TABLE IF EXISTS new_list; CREATE TEMP TABLE new_list (user_id bigint) ON COMMIT DROP');
    await copyIn(c, 'COPY new_list FROM STDIN (FORMAT binary)', copy.body);
    list = { rows: copy.length, ids: copy };
  }
  // Statistics for the diff's joins, from a small sample: the planner needs the row count and roughly how
  // distinct the ids are, not a 100-bucket histogram. The default target's 30,000-row sample cost a
  // 100k PUT several times as much (docs/benchmarks.md).
  await c.query('SET LOCAL default_statistics_target = 10; ANALYZE new_list; RESET default_statistics_target');
  return list;
}

/**
 * Deduplicating by sorting, with the memory to sort a PUT's rows in place. Staged rows were just written
 * and upload_staged has no statistics for them: the planner guesses 200 distinct ids and deduplicates with
 * a hash table sized for them, which for millions of ids spills to disk in many batches, far slower than
 * sort + unique (docs/benchmarks.md, "What was slow"). Sorting is right at
 * any size here, and it also yields the key order the inserts want. 32 MB sorts the rows a 100,000-id PUT
 * adds in memory (PostgreSQL's default 4 MB spilled them to disk); a 30M-id commit still sorts
 * on disk, in fewer runs. The settings end with the statement.
 */
export async function withoutHashAggregate<T>(c: PoolClient, fn: () => Promise<T>): Promise<T> {
  await c.query("SET LOCAL enable_hashagg = off; SET LOCAL work_mem = '32MB'");
  const result = await fn();
  await c.query('RESET enable_hashagg; RESET work_mem');
  return result;
}
