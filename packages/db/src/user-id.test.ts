import { storedIdsCopyBinary } from './user-id';

const TWO_POW_63 = 2n ** 63n;

/** The stored values a COPY body carries, read back as PostgreSQL would (header 19 bytes, rows of 14). */
function rowsOf(body: Buffer): bigint[] {
  expect(body.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  expect(body.readInt16BE(body.length - 2)).toBe(-1);
  const n = (body.length - 19 - 2) / 14;
  return Array.from({ length: n }, (_, i) => {
    expect(body.readInt16BE(19 + i * 14)).toBe(1);
    expect(body.readInt32BE(19 + i * 14 + 2)).toBe(8);
    return body.readBigInt64BE(19 + i * 14 + 6);
  });
}

describe('storedIdsCopyBinary (a PUT body as COPY FROM STDIN (FORMAT binary))', () => {
  it('writes id - 2^63 exactly for ids of 17 to 20 digits, around 2^63, the 2^32 steps and 2^64 - 1', () => {
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
    // And 2,000 pseudo-random ones across the whole range (a fixed LCG: the same ids every run).
    let s = 12345n;
    for (let i = 0; i < 2_000; i++) {
      s = (s * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      const id = 10n ** 16n + (s % (2n ** 64n - 10n ** 16n));
      ids.push(id.toString());
    }
    expect(rowsOf(storedIdsCopyBinary(ids))).toEqual(ids.map((id) => BigInt(id) - TWO_POW_63));
  });

  it('refuses anything that is not a 17 to 20 digit id up to 2^64 - 1, rather than write another number', () => {
    for (const bad of ['18446744073709551616', '99999999999999999999', '1000000000000000', '012345678901234567', '1234567890123456a', '123456789012345678 ', '']) {
      expect(() => storedIdsCopyBinary(['100000000000000000', bad])).toThrow('not a user id');
    }
    expect(rowsOf(storedIdsCopyBinary([]))).toEqual([]);
  });
});
