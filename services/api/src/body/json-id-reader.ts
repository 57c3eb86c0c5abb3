import { StoredIdKeys, type StoredIdsCopy } from '@rolelink/db/list';
import { USER_ID_MAX_DIGITS, USER_ID_MIN_DIGITS } from '@rolelink/wire-types/user-id';

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
 * Why: JSON.parse, encoding the strings again for the COPY, and collecting them (they live for the whole
 * request, so the young generation copies them and then promotes them) were a large share of a big PUT;
 * this reads the body faster than JSON.parse and the encoder together (docs/benchmarks.md, "Same-run
 * limits") and allocates two buffers (the keys it sorts, the body).
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
