import { storedIdsCopy, storedIdsCopyFromJson } from './user-id';

const TWO_POW_63 = 2n ** 63n;

/** Ids of 17 to 20 digits, around 2^63, the 2^32 steps, 2^64 - 1, and 2,000 pseudo-random ones (a fixed LCG). */
function edgeAndRandomIds(): string[] {
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

/** What the COPY body must hold for `ids`: each stored value once, in ascending order. */
function sortedDistinctStored(ids: readonly string[]): bigint[] {
  return [...new Set(ids.map((id) => BigInt(id) - TWO_POW_63))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

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
    const around = storedIdsCopy(['9223372036854775809', '9223372036854775807', '9223372036854775808', '100000000000000000']);
    expect(rowsOf(around.body)).toEqual([100000000000000000n - TWO_POW_63, -1n, 0n, 1n]);
  });

  it('refuses anything that is not a 17 to 20 digit id up to 2^64 - 1, rather than write another number', () => {
    for (const bad of ['18446744073709551616', '99999999999999999999', '1000000000000000', '012345678901234567', '1234567890123456a', '123456789012345678 ', '']) {
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

describe('storedIdsCopyFromJson (a PUT body read straight from its JSON bytes)', () => {
  const read = (json: string) => storedIdsCopyFromJson(Buffer.from(json, 'utf8'));

  it('reads a JSON array of id strings as the very COPY body storedIdsCopy writes for them, sorted, each once', () => {
    const ids = edgeAndRandomIds();
    ids.push(ids[3]!, ids[0]!);
    const got = read(JSON.stringify(ids));
    expect(got?.length).toBe(ids.length - 2);
    expect(got?.sent).toBe(ids.length); // what a per-request cap counts
    expect(rowsOf(got!.body)).toEqual(sortedDistinctStored(ids));
    expect(got!.body.equals(storedIdsCopy(ids).body)).toBe(true);
    // JSON's whitespace anywhere between tokens, and the empty list.
    expect(read(` \r\n\t[ "100000000000000000" ,\n"18446744073709551615"\t]\n `)!.body.equals(storedIdsCopy(['100000000000000000', '18446744073709551615']).body)).toBe(true);
    expect(read('[]')!.body.equals(storedIdsCopy([]).body)).toBe(true);
    expect(read(' [ ] ')?.length).toBe(0);
  });

  it('takes no body JSON.parse would read differently, and none the id checks refuse: those are parsed and refused the usual way', () => {
    const refused = [
      '', // express.json reads an empty body as {}
      '{}',
      '["100000000000000000",]',
      '["100000000000000000"]x',
      '["100000000000000000"],',
      '["100000000000000000" "100000000000000001"]',
      '[100000000000000000]',
      '["100000000000000000", 100000000000000001]',
      '[{"id":"100000000000000000","ttl_seconds":60}]',
      '["\\u0031100000000000000000"]', // an escape: a valid id to JSON.parse, not to this reader
      '\ufeff["100000000000000000"]', // a byte-order mark
      '["1000000000000000"]', // 16 digits
      '["100000000000000000000"]', // 21 digits
      '["0100000000000000000"]', // a leading zero
      '["18446744073709551616"]', // 2^64
      '["99999999999999999999"]',
      '["123456789012345678 "]',
      '["12345678901234567a"]',
      '[["100000000000000000"]]',
      '[',
      '["100000000000000000"',
      '["100000000000000000',
      'null',
    ];
    for (const json of refused) expect([json, read(json)]).toEqual([json, null]);
  });

  it('fingerprints as its count and a digest of its set of ids (JSON.stringify), not as its bytes', () => {
    const a = read('["100000000000000000","100000000000000001"]')!;
    const b = read('[ "100000000000000000" , "100000000000000001" ]')!;
    const c = read('["100000000000000001","100000000000000000","100000000000000001"]')!;
    const d = read('["100000000000000000","100000000000000002"]')!;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).toBe(JSON.stringify(c)); // the same list: order and repeats do not count
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(d));
    expect(JSON.parse(JSON.stringify(a))).toEqual({ ids: 2, sha256: expect.any(String) });
  });
});
