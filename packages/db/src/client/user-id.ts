/**
 * How user ids are stored (docs/architecture.md "User ids in PostgreSQL"). A user id is an
 * unsigned 64-bit snowflake, up to 2^64 - 1; PostgreSQL's bigint is signed and stops at 2^63 - 1. Every
 * user-id column (link_user, list_change, upload_staged, applied_member, member_change,
 * held_change.removal_sample, link_sync_state.cursor and applied_cutoff) holds `id - 2^63` in a signed
 * bigint: the map is monotonic, so the 8-byte key, its indexes and "lowest id first" (ORDER BY, ranges,
 * OFFSET) work unchanged on the stored value, across the 2^63 boundary too.
 *
 * This file is the only place the offset is written (besides the migration that converted old rows,
 * prisma/migrations/20261125190000_user_id_offset). Repositories convert in SQL, so that 100,000 ids of a
 * PUT or 30M rows of a COPY never cross into a JavaScript BigInt: pass ids as text (or `numeric[]` for
 * arrays) through `toStored`, a chunk's ids through `idArrayParams`/`storedIdRows`, a PUT's as a binary
 * COPY body (`storedIdsCopy`, stored-ids-copy.ts), and read them back through `fromStored` as text.
 */
const OFFSET_SQL = '9223372036854775808';
const OFFSET = 9223372036854775808n;

/** Largest user id (2^64 - 1): the open upper end of the last range of a walk. */
export { MAX_USER_ID } from '@rolelink/wire-types/user-id';

/** SQL: a user id (a text or numeric expression, e.g. `$2` or an element of `unnest($2::numeric[])`) as stored. */
export function toStored(idSql: string): string {
  return `(${idSql}::numeric - ${OFFSET_SQL})::bigint`;
}

/** SQL: a stored user-id column as the id's decimal text (numeric: an id above 2^63 - 1 does not fit bigint). */
export function fromStored(columnSql: string): string {
  return `(${columnSql}::numeric + ${OFFSET_SQL})::text`;
}

/**
 * An id array parameter as PostgreSQL's array literal, built with one join. pg's own array serializer
 * quotes and escapes every element, several times the CPU of this for a 100,000-ID chunk or PUT.
 * The digits check keeps a malformed element from being read as several (callers pass validated IDs).
 */
export function bigintArrayLiteral(ids: readonly string[]): string {
  const literal = `{${ids.join(',')}}`;
  if (!/^\{(?:\d+(?:,\d+)*)?\}$/.test(literal)) throw new Error('user ids must be strings of decimal digits');
  return literal;
}

const MAX_BIGINT_TEXT = '9223372036854775807';

/**
 * A large id array (an upload chunk: up to 100,000) as the two parameters `storedIdRows` reads: the ids up
 * to 2^63 - 1 (every snowflake issued so far) as a `bigint[]`, the wider ones as a `numeric[]` (usually
 * empty). PostgreSQL reads and offsets a bigint array element faster than a numeric one
 * (docs/benchmarks.md, "Same-run limits").
 */
export function idArrayParams(ids: readonly string[]): [narrow: string, wide: string] {
  let wide: string[] | null = null;
  for (const id of ids) if (id.length > 19 || (id.length === 19 && id > MAX_BIGINT_TEXT)) (wide ??= []).push(id);
  if (!wide) return [bigintArrayLiteral(ids), '{}'];
  const isWide = new Set(wide);
  return [bigintArrayLiteral(ids.filter((id) => !isWide.has(id))), bigintArrayLiteral(wide)];
}

/** SQL: the rows (`user_id`, stored) of the ids that `idArrayParams` split into the parameters `narrow` and `wide`, e.g. `$2`, `$3`. */
export function storedIdRows(narrow: string, wide: string): string {
  // x - (2^63 - 1) - 1: the offset in bigint arithmetic without its literal, which does not fit a bigint.
  return `SELECT x - 9223372036854775807 - 1 AS user_id FROM unnest(${narrow}::bigint[]) x UNION ALL SELECT (x - ${OFFSET_SQL})::bigint FROM unnest(${wide}::numeric[]) x`;
}

/** A user-id position (a cursor, a cutoff) as the text of its stored bigint, for a state column. */
export function storedText(id: bigint): string {
  return (id - OFFSET).toString();
}

/** A stored position read back as `bigint::text`, as the id. */
export function fromStoredText(text: string): bigint {
  return BigInt(text) + OFFSET;
}
