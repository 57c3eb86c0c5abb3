import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ItemExpiries } from './list-expiry.repo';
import { bigintArrayLiteral, narrowToStored, splitWide, toStored } from './user-id';

/** Where a full-list write's new list comes from: a PUT body's ids (and their expiries), or a staged upload. */
export type ReplaceSource = { kind: 'ids'; ids: readonly string[]; expiries?: ItemExpiries | null } | { kind: 'upload'; uploadId: string };

/** What buildNewList wrote to `new_list`: its rows, and whether they are distinct (a PUT body may repeat an id). */
export type NewList = { rows: number; distinct: boolean };

/**
 * The new list of a replace (PUT, upload commit, their dry runs) in `new_list`, a temporary table of this
 * transaction with a `user_id` column (stored) and no index: the replace's set operations are hash joins.
 *
 * A PUT's ids are COPYed in as sent, duplicates and all. COPY reads 100,000 ids in about half the time
 * PostgreSQL takes to read them as one array parameter, and deduplicating them up front (a sort of the
 * whole list) would cost as much again; the replace's statements do not need distinct rows (its deletes
 * and the removal counts test membership, its insert deduplicates the rows it adds, which it sorts
 * anyway), so the count is taken only where a decision needs it before the write (newListSize). The
 * table offsets each id as it is written (a generated column): `id` holds the ids up to 2^63 - 1,
 * `wide` the stored value of the wider ones (usually none), sent as a numeric array.
 *
 * A staged upload is already in PostgreSQL: its deduplicated rows are selected in (a 30M-row commit
 * needs its count, and staged rows repeat whenever a chunk was resent).
 */
export async function buildNewList(c: PoolClient, source: ReplaceSource): Promise<NewList> {
  let list: NewList;
  // ON COMMIT DROP ends the table with the transaction; inside a caller's transaction (a savepoint) an
  // earlier replace's table would still be there.
  await c.query('DROP TABLE IF EXISTS new_list');
  if (source.kind === 'upload') {
    const r = await withoutHashAggregate(c, () => c.query('CREATE TEMP TABLE new_list ON COMMIT DROP AS SELECT DISTINCT user_id FROM upload_staged WHERE upload_id = $1', [source.uploadId]));
    list = { rows: r.rowCount ?? 0, distinct: true };
  } else {
    await c.query(`CREATE TEMP TABLE new_list (id bigint, wide bigint, user_id bigint GENERATED ALWAYS AS (COALESCE(${narrowToStored('id')}, wide)) STORED) ON COMMIT DROP`);
    const { narrow, wide } = splitWide(source.ids);
    await copyIds(c, narrow);
    if (wide.length) await c.query(`INSERT INTO new_list (wide) SELECT ${toStored('x')} FROM unnest($1::numeric[]) x`, [bigintArrayLiteral(wide)]);
    list = { rows: source.ids.length, distinct: false };
  }
  // Statistics for the diff's joins, from a small sample: the planner needs the row count and roughly how
  // distinct the ids are, not a 100-bucket histogram. The default target's 30,000-row sample took 15 ms
  // of a 100k PUT, this 3 ms.
  await c.query('SET LOCAL default_statistics_target = 10; ANALYZE new_list; RESET default_statistics_target');
  return list;
}

/** The new list's distinct users: what the list will hold. A sort of the list when a PUT body was COPYed in. */
export async function newListSize(c: PoolClient, list: NewList): Promise<number> {
  if (list.distinct) return list.rows;
  const { rows } = await withoutHashAggregate(c, () => c.query<{ n: number }>('SELECT count(DISTINCT user_id)::int AS n FROM new_list'));
  return rows[0]!.n;
}

/** ids up to 2^63 - 1 into new_list's `id`, one per line of COPY's text format. */
async function copyIds(c: PoolClient, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const lines = ids.join('\n');
  // The digits check keeps a malformed id from being read as several rows or columns (callers pass validated ids).
  if (!/^\d+(?:\n\d+)*$/.test(lines)) throw new Error('user ids must be strings of decimal digits');
  await pipeline(Readable.from([`${lines}\n`]), c.query(copyFrom('COPY new_list (id) FROM STDIN')));
}

/**
 * Deduplicating by sorting, with the memory to sort a PUT's list in place. Staged rows were just written
 * and upload_staged has no statistics for them: the planner guesses 200 distinct ids and deduplicates with
 * a hash table sized for them, which for millions of ids spills to disk in many batches (EXPLAIN ANALYZE,
 * 10M staged ids: 24 s before the first row came out, against 9 s for sort + unique), and for a PUT's
 * 100,000 grows its table again and again (~50 ms against ~20 ms for an in-memory sort). Sorting is right
 * at any size here, and it also yields the key order the inserts want. 32 MB sorts a 100,000-id list in
 * memory (PostgreSQL's default 4 MB spilled it to disk); a 30M-id commit still sorts on disk, in fewer
 * runs. The settings end with the statement.
 */
export async function withoutHashAggregate<T>(c: PoolClient, fn: () => Promise<T>): Promise<T> {
  await c.query("SET LOCAL enable_hashagg = off; SET LOCAL work_mem = '32MB'");
  const result = await fn();
  await c.query('RESET enable_hashagg; RESET work_mem');
  return result;
}
