import { storedIdsCopy } from '@rolelink/db/list';
import { edgeAndRandomIds, rowsOf, sortedDistinctStored } from '../../../../test/support/stored-ids';
import { storedIdsCopyFromJson } from './json-id-reader';

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
    expect(
      read(` \r\n\t[ "100000000000000000" ,\n"18446744073709551615"\t]\n `)!.body.equals(
        storedIdsCopy(['100000000000000000', '18446744073709551615']).body,
      ),
    ).toBe(true);
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
