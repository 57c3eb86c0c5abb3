import { TWO_POW_63, edgeAndRandomIds, rowsOf, sortedDistinctStored } from '../../../../test/support/stored-ids';
import { storedIdsCopy } from './stored-ids-copy';

describe('storedIdsCopy (a PUT body as COPY FROM STDIN (FORMAT binary))', () => {
  it('writes id - 2^63 exactly for ids of 17 to 20 digits, around 2^63, the 2^32 steps and 2^64 - 1, sorted, each once', () => {
    const ids = edgeAndRandomIds();
    ids.push(ids[7]!, ids[8]!, ids[13]!, ids[500]!); // repeats, either side of 2^63 and at 2^64 - 1
    const copy = storedIdsCopy(ids);
    const want = sortedDistinctStored(ids);
    expect(rowsOf(copy.body)).toEqual(want);
    expect(copy.length).toBe(want.length);
    expect(copy.length).toBe(ids.length - 4);
    expect(copy.sent).toBe(ids.length);
    // Ascending across the 2^63 boundary: the stored values' signed order is the ids' order.
    const around = storedIdsCopy([
      '9223372036854775809',
      '9223372036854775807',
      '9223372036854775808',
      '100000000000000000',
    ]);
    expect(rowsOf(around.body)).toEqual([100000000000000000n - TWO_POW_63, -1n, 0n, 1n]);
  });

  it('refuses anything that is not a 17 to 20 digit id up to 2^64 - 1, rather than write another number', () => {
    for (const bad of [
      '18446744073709551616',
      '99999999999999999999',
      '1000000000000000',
      '012345678901234567',
      '1234567890123456a',
      '123456789012345678 ',
      '',
    ]) {
      expect(() => storedIdsCopy(['100000000000000000', bad])).toThrow('not a user id');
    }
    expect(rowsOf(storedIdsCopy([]).body)).toEqual([]);
  });
});

describe('StoredIdsCopy.sample (evenly spaced ids as a binary bigint[] parameter)', () => {
  /** The elements of a one-dimensional int8[] in PostgreSQL's binary array format. */
  function elementsOf(array: Buffer): bigint[] {
    expect([0, 4, 8, 16].map((o) => array.readInt32BE(o))).toEqual([1, 0, 20, 1]); // 1 dimension, no nulls, int8, lower bound 1
    const n = array.readInt32BE(12);
    expect(array.length).toBe(20 + n * 12);
    return Array.from({ length: n }, (_, i) => {
      expect(array.readInt32BE(20 + i * 12)).toBe(8);
      return array.readBigInt64BE(24 + i * 12);
    });
  }

  it('takes k ids from the middle of k equal parts of the sorted list, or all of a shorter one', () => {
    const ids = edgeAndRandomIds().slice(0, 1_000);
    const stored = sortedDistinctStored(ids);
    const copy = storedIdsCopy(ids);
    expect(elementsOf(copy.sample(4))).toEqual([125, 375, 625, 875].map((i) => stored[i]));
    expect(elementsOf(copy.sample(5_000))).toEqual(stored);
    expect(elementsOf(storedIdsCopy([]).sample(256))).toEqual([]);
  });
});
