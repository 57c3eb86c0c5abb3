/**
 * How user ids are stored (issue 24, docs/architecture.md "User ids in PostgreSQL"). A user id is an
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
 * COPY body (`storedIdsCopy`), and read them back through `fromStored` as text.
 */
import { createHash } from 'node:crypto';

const OFFSET_SQL = '9223372036854775808';
const OFFSET = 9223372036854775808n;

/** Largest user id (2^64 - 1): the open upper end of the last range of a walk. */
export { MAX_USER_ID } from '@rolelink/wire-types/user-id';
import { USER_ID_MAX_DIGITS, USER_ID_MIN_DIGITS } from '@rolelink/wire-types/user-id';

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
 * quotes and escapes every element: ~100 ms of CPU for a 100,000-ID chunk or PUT, against ~15 ms here.
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
 * empty). PostgreSQL reads and offsets a bigint array element several times faster than a numeric one:
 * for 100,000 ids, 37 ms against 55 ms to read and convert them (bench notes, docs/benchmarks.md).
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

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const COPY_ROW = 14; // field count (2 bytes), field length (4), the bigint (8)
const COPY_HEADER = COPY_SIGNATURE.length + 8; // the signature, flags (4 bytes), header extension length (4)
// Which 32-bit word of a BigInt64Array element holds its high half (the platform's byte order).
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LOW = 1 - HIGH;

/**
 * Stored ids collected as they are read, then written as a COPY body sorted and without repeats. Sorting
 * here costs the API ~5 ms per 100,000 ids (a typed array sorts natively); it spares PostgreSQL the
 * deduplication (a sort and a Unique step over the rows a replace adds, or a count of distinct ids where
 * a decision needs the new size) and gives the replace's INSERT its key order for free: 100k over 100k,
 * 50% changed, the bench's statement log had its DELETE at 46 ms and its INSERT at 88, against 67–81 and
 * 105 before (with the journal bound as a one-time filter; docs/benchmarks.md "sixth session").
 */
class StoredIdKeys {
  private readonly keys: BigInt64Array;
  private readonly words: Uint32Array;
  private count = 0;

  constructor(capacity: number) {
    this.keys = new BigInt64Array(capacity);
    this.words = new Uint32Array(this.keys.buffer);
  }

  /**
   * Adds the stored value of the id whose decimal digits were read as `hi` (all but the last 9) and `lo`
   * (the last 9). In two's complement `id - 2^63` is the id's 64 bits with the top bit flipped; the bits
   * are recombined in 16-bit steps, each product below 2^53, so the doubles stay exact. False when the id
   * exceeds 2^64 - 1 (nothing is added).
   */
  add(hi: number, lo: number): boolean {
    // id = hi * 10^9 + lo = (a * 10^9) * 2^16 + (b * 10^9 + lo), with hi = a * 2^16 + b.
    const a = Math.floor(hi / 65536);
    const x = a * 1e9; // < 2^50
    const z = (x % 65536) * 65536 + (hi - a * 65536) * 1e9 + lo; // < 2^47
    const high = Math.floor(x / 65536) + Math.floor(z / 4294967296);
    if (high > 0xffffffff) return false;
    this.words[2 * this.count + HIGH] = (high ^ 0x80000000) >>> 0;
    this.words[2 * this.count + LOW] = z % 4294967296;
    this.count++;
    return true;
  }

  /** The body of `COPY … (user_id) FROM STDIN (FORMAT binary)`: the distinct stored values in ascending order. */
  copy(): StoredIdsCopy {
    // The signed order of the stored values is the ids' order (the offset is monotonic).
    this.keys.subarray(0, this.count).sort();
    const out = Buffer.allocUnsafe(COPY_HEADER + this.count * COPY_ROW + 2);
    let o = COPY_SIGNATURE.copy(out, 0);
    o = out.writeUInt32BE(0, o); // flags
    o = out.writeUInt32BE(0, o); // header extension length
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const w = this.words;
    let rows = 0;
    let prevHigh = -1; // no uint32 word equals -1: the first id is never a repeat
    let prevLow = -1;
    for (let k = 0; k < this.count; k++) {
      const high = w[2 * k + HIGH]!;
      const low = w[2 * k + LOW]!;
      if (high === prevHigh && low === prevLow) continue;
      prevHigh = high;
      prevLow = low;
      view.setInt16(o, 1); // one field
      view.setInt32(o + 2, 8); // of 8 bytes
      view.setUint32(o + 6, high);
      view.setUint32(o + 10, low);
      o += COPY_ROW;
      rows++;
    }
    o = out.writeInt16BE(-1, o); // trailer
    return new StoredIdsCopy(rows, out.subarray(0, o), this.count);
  }
}

/**
 * Ids as the body of `COPY … (user_id) FROM STDIN (FORMAT binary)`: one bigint column, stored, sorted
 * and distinct (StoredIdKeys), every id up to 2^64 - 1 written the same way, without a BigInt and without
 * PostgreSQL parsing text. Ids must be valid user ids (`isUserId`, @rolelink/wire-types/user-id); anything
 * else throws rather than be written as some other number. The loop checks the rule's bounds as it reads
 * the digits (the top bound in StoredIdKeys.add) instead of running the rule's regex again per id.
 */
const notAnId = (id: string) => new Error(`not a user id (17 to 20 digits, at most 2^64 - 1): ${JSON.stringify(id).slice(0, 40)}`);

export function storedIdsCopy(ids: readonly string[]): StoredIdsCopy {
  const keys = new StoredIdKeys(ids.length);
  for (const id of ids) {
    const n = id.length;
    if (n < USER_ID_MIN_DIGITS || n > USER_ID_MAX_DIGITS || id.charCodeAt(0) === 48) throw notAnId(id);
    let hi = 0; // all but the last 9 digits
    let lo = 0; // the last 9: < 10^9
    for (let i = 0; i < n; i++) {
      const d = id.charCodeAt(i) - 48;
      if (d < 0 || d > 9) throw notAnId(id);
      if (i < n - 9) hi = hi * 10 + d;
      else lo = lo * 10 + d;
    }
    if (!keys.add(hi, lo)) throw notAnId(id);
  }
  return keys.copy();
}

/**
 * A list of ids as the COPY body of its distinct stored values in ascending order (StoredIdKeys): `length`
 * ids, repeats counted once, out of the `sent` ids it was read from (what a per-request cap counts).
 * Written by storedIdsCopy from strings, or by storedIdsCopyFromJson straight from a request's JSON
 * bytes, so that a PUT's 100,000 ids never become JavaScript strings.
 */
export class StoredIdsCopy {
  constructor(
    readonly length: number,
    readonly body: Buffer,
    readonly sent: number,
  ) {}

  /**
   * Up to `k` of the ids, evenly spaced through the sorted list, as a binary `bigint[]` parameter (pg sends
   * a Buffer in binary; array_recv reads it without parsing text): a sample of the list for an estimate.
   */
  sample(k: number): Buffer {
    const n = Math.min(k, this.length);
    const out = Buffer.allocUnsafe(20 + n * 12);
    out.writeInt32BE(1, 0); // one dimension
    out.writeInt32BE(0, 4); // no nulls
    out.writeInt32BE(20, 8); // element type: int8's oid
    out.writeInt32BE(n, 12); // its length
    out.writeInt32BE(1, 16); // its lower bound
    for (let i = 0; i < n; i++) {
      const row = COPY_HEADER + Math.floor(((i + 0.5) * this.length) / n) * COPY_ROW;
      out.writeInt32BE(8, 20 + i * 12);
      this.body.copy(out, 24 + i * 12, row + 6, row + COPY_ROW);
    }
    return out;
  }

  /** What JSON.stringify makes of it (an idempotency fingerprint, a log field): the count and a digest of the ids, not 1.4 MB of bytes. */
  toJSON(): { ids: number; sha256: string } {
    return { ids: this.length, sha256: createHash('sha256').update(this.body).digest('base64') };
  }
}

const QUOTE = 0x22;
const isJsonSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * A JSON body that is an array of id strings, each 17 to 20 digits without a leading zero and at most
 * 2^64 - 1 (`isUserId`'s rule, checked byte by byte with its bounds), as a StoredIdsCopy, in one pass over its bytes. Null for any other
 * body, valid JSON or not (an item that is an object, a number, an escape, a refused id, a byte-order
 * mark, trailing text…): the caller parses those the usual way, which accepts what JSON allows and
 * refuses the rest with the usual errors. This reader only ever accepts a body JSON.parse reads as the
 * same ids.
 *
 * Why: a 100,000-id PUT spent ~16 ms in JSON.parse, ~11 ms encoding the strings again for the COPY, and
 * ~35 ms collecting them (they live for the whole request, so the young generation copies them and then
 * promotes them); this reads the 2.2 MB body in 11–15 ms (JSON.parse and the encoder together: 21–35 ms,
 * on the same machine at the same time) and allocates two buffers (the keys it sorts, the body).
 */
export function storedIdsCopyFromJson(json: Buffer): StoredIdsCopy | null {
  const end = json.length;
  let i = 0;
  while (isJsonSpace(json[i])) i++;
  if (json[i] !== 0x5b) return null; // [
  i++;
  // Each id takes at least 19 bytes of JSON (17 digits, two quotes), a separator 1 more.
  const keys = new StoredIdKeys(Math.floor(end / 19 + 1));
  while (isJsonSpace(json[i])) i++;
  if (json[i] === 0x5d)
    i++; // ] — an empty list
  else {
    for (;;) {
      if (json[i] !== QUOTE) return null;
      const start = ++i;
      // The closing quote first (a native search), so the digits split into hi and lo as they are read.
      const close = json.indexOf(QUOTE, start);
      const n = close - start;
      if (close < 0 || n < USER_ID_MIN_DIGITS || n > USER_ID_MAX_DIGITS || json[start] === 0x30) return null;
      const split = close - 9;
      let hi = 0; // all but the last 9 digits
      let lo = 0; // the last 9
      for (; i < close; i++) {
        const d = json[i]! - 48;
        if (d < 0 || d > 9) return null; // a backslash escape, a sign, a letter…
        if (i < split) hi = hi * 10 + d;
        else lo = lo * 10 + d;
      }
      i++;
      if (!keys.add(hi, lo)) return null;
      while (isJsonSpace(json[i])) i++;
      if (json[i] === 0x2c) {
        i++;
        while (isJsonSpace(json[i])) i++;
        continue;
      }
      if (json[i] !== 0x5d) return null;
      i++;
      break;
    }
  }
  while (isJsonSpace(json[i])) i++;
  if (i !== end) return null;
  return keys.copy();
}
