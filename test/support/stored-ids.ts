/** Ids and readers for the tests of a COPY body of stored ids (db's stored-ids-copy.ts, the API's json-id-reader.ts). */

export const TWO_POW_63 = 2n ** 63n;

/** Ids of 17 to 20 digits, around 2^63, the 2^32 steps, 2^64 - 1, and 2,000 pseudo-random ones (a fixed LCG). */
export function edgeAndRandomIds(): string[] {
  const ids = [
    '10000000000000000',
    '99999999999999999',
    '100000000000000000',
    '4294967295999999999',
    '4294967296000000000',
    '9223372036854775806',
    '9223372036854775807',
    '9223372036854775808',
    '9223372036854775809',
    '9999999999999999999',
    '10000000000000000000',
    '18446744069414584319',
    '18446744069414584320',
    '18446744073709551615',
  ];
  let s = 12345n;
  for (let i = 0; i < 2_000; i++) {
    s = (s * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    ids.push((10n ** 16n + (s % (2n ** 64n - 10n ** 16n))).toString());
  }
  return ids;
}

/** The stored values a COPY body carries, read back as PostgreSQL would (header 19 bytes, rows of 14). */
export function rowsOf(body: Buffer): bigint[] {
  expect(body.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  expect(body.readInt16BE(body.length - 2)).toBe(-1);
  const n = (body.length - 19 - 2) / 14;
  return Array.from({ length: n }, (_, i) => {
    expect(body.readInt16BE(19 + i * 14)).toBe(1);
    expect(body.readInt32BE(19 + i * 14 + 2)).toBe(8);
    return body.readBigInt64BE(19 + i * 14 + 6);
  });
}

/** What the COPY body must hold for `ids`: each stored value once, in ascending order. */
export function sortedDistinctStored(ids: readonly string[]): bigint[] {
  return [...new Set(ids.map((id) => BigInt(id) - TWO_POW_63))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
