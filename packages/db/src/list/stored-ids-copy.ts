/**
 * A list of user ids as the body of `COPY … (user_id) FROM STDIN (FORMAT binary)`: their stored values
 * (`id - 2^63`, user-id.ts) sorted and without repeats, written without a BigInt and without PostgreSQL
 * parsing text. Built from strings by `storedIdsCopy`, or digit by digit by a reader that never makes
 * strings (the API's PUT body reader, services/api/src/body/json-id-reader.ts) through `StoredIdKeys`.
 */
import { createHash } from 'node:crypto';
import { USER_ID_MAX_DIGITS, USER_ID_MIN_DIGITS } from '@rolelink/wire-types/user-id';

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const COPY_ROW = 14; // field count (2 bytes), field length (4), the bigint (8)
const COPY_HEADER = COPY_SIGNATURE.length + 8; // the signature, flags (4 bytes), header extension length (4)
// Which 32-bit word of a BigInt64Array element holds its high half (the platform's byte order).
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LOW = 1 - HIGH;

/**
 * Stored ids collected as they are read, then written as a COPY body sorted and without repeats. Sorting
 * here is cheap for the API (a typed array sorts natively); it spares PostgreSQL the
 * deduplication (a sort and a Unique step over the rows a replace adds, or a count of distinct ids where
 * a decision needs the new size) and gives the replace's INSERT its key order for free, which made both
 * the replace's DELETE and its INSERT faster (docs/benchmarks.md, "The list sorted and deduplicated in
 * the API").
 */
export class StoredIdKeys {
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
const notAnId = (id: string) =>
  new Error(`not a user id (17 to 20 digits, at most 2^64 - 1): ${JSON.stringify(id).slice(0, 40)}`);

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
