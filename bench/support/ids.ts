// User IDs for the API benchmark, generated on the fly: never an array of millions of IDs in memory.
//
// Universe position j ∈ [0, n) maps to a scrambled slot ((j·A + C) mod n) and then to the 19-digit ID
// 10^18 + slot·37 + 11 (19 digits like today's snowflakes, so the API's bigint range check runs on every
// ID). Consecutive positions land far apart, so a chunk's IDs arrive in no useful order and the server
// has to sort them, as it would for real snowflakes. All arithmetic stays below 2^53.

const A = 1_000_003; // prime, larger than any n used here, so coprime with n: the map is a bijection
const C = 7_919;
const STRIDE = 37;
const OFFSET = 11;
const FLOOR = 1_000_000_000_000_000_000n;
/** Digits of every generated ID. */
export const ID_DIGITS = 19;

export function slotOf(j: number, n: number): number {
  return ((((j % n) * A) % n) + C) % n;
}

/** The ID of universe position j, as the decimal string the API takes. */
export function idAt(j: number, n: number): string {
  return '1' + String(slotOf(j, n) * STRIDE + OFFSET).padStart(ID_DIGITS - 1, '0');
}

/** The same mapping in SQL, for raw PostgreSQL baselines that load exactly the rows the API stored. */
export function idSql(jExpr: string, n: number): string {
  return `(${FLOOR}::bigint + ((((${jExpr}) % ${n}) * ${A}::bigint) % ${n} + ${C}) % ${n} * ${STRIDE} + ${OFFSET})`;
}

/** JSON array body of positions [from, to) of a universe of n. */
export function jsonIds(from: number, to: number, n: number): string {
  const parts: string[] = new Array<string>(to - from);
  for (let j = from; j < to; j++) parts[j - from] = idAt(j, n);
  return '["' + parts.join('","') + '"]';
}

/** Plain array of positions [from, to) (PUT-sized, for raw baselines' array parameters). */
export function idArray(from: number, to: number, n: number): string[] {
  const out: string[] = new Array<string>(to - from);
  for (let j = from; j < to; j++) out[j - from] = idAt(j, n);
  return out;
}
