import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import { grantedHolders } from '../sync/applied-members.repo';
import { addUser } from '../list/list-single.repo';
import { readJournal } from '../list/list-changes.repo';
import { diffRange, listedUserAt, nextRangeEnd } from '../sync/sync-diff.repo';
import { fromStored, idArrayParams, MAX_USER_ID, toStored } from './user-id';
import { replaceList } from '../list/list-replace.repo';
import { latestHeldChange, recordHeldChange } from '../list/held-changes.repo';
import { streamUserIdsCsv } from '../list/list-stream';
import { removeUser } from '../list/list-single.repo';
import { journalRepairs } from '../list/list-changes.repo';
import { MIXED_WIDTH_IDS, TWO_POW_63 } from '../../../../test/support/user-id-cases';

// Queries hand ids and sequences to JavaScript as text (bigint does not fit a JS number), and PostgreSQL
// resolves an unqualified ORDER BY name to the output column first: `SELECT user_id::text … ORDER BY
// user_id` sorts the text, so 100000000000000000 (18 digits) came before 99999999999999999 (17) and seq
// 10 before 9. Real snowflakes have 17 to 20 digits and sequences pass 9, 99, 999, so these check
// numeric order on exactly those boundaries.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const MIXED = [
  '99999999999999998',
  '99999999999999999',
  '100000000000000000',
  '100000000000000001',
  '1000000000000000000',
  '9000000000000000000',
];

async function list(linkId: string, ids: readonly string[]): Promise<void> {
  await db.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u`,
    [linkId, ids],
  );
}

describe('ids and sequences come back in numeric order', () => {
  it('reads the journal across 9 → 10 in sequence order (a text sort made it look non-contiguous, and the worker walked)', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium' });
    for (let i = 0; i < 12; i++) await addUser(db.pool, linkId, String(200000000000000000n + BigInt(i)), 30_000_000);
    const { entries } = await readJournal(db.pool, linkId, 0n);
    expect(entries.map((e) => Number(e.seq))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('finds the first held user by numeric offset (the lowest-N boundary), across id lengths', async () => {
    const { linkId } = await seedLink(db);
    await list(linkId, MIXED);
    expect(await listedUserAt(db.pool, linkId, 0)).toBe(99999999999999998n);
    expect(await listedUserAt(db.pool, linkId, 2)).toBe(100000000000000000n);
    expect(await listedUserAt(db.pool, linkId, 4)).toBe(1000000000000000000n);
  });

  it('diffs a range in user-id order and pages the holders of a strip without skipping any', async () => {
    const { linkId } = await seedLink(db);
    await list(linkId, MIXED);
    expect((await diffRange(db.pool, linkId, 0n, MAX_USER_ID, null)).map((r) => r.userId)).toEqual(MIXED);

    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, granted) SELECT $1, ${toStored('u')}, 'applied', true FROM unnest($2::numeric[]) u`,
      [linkId, MIXED],
    );
    const seen: string[] = [];
    let after = '0';
    for (;;) {
      const page = await grantedHolders(db.pool, linkId, after, 2);
      if (!page.length) break;
      seen.push(...page);
      after = page[page.length - 1]!;
    }
    expect(seen).toEqual(MIXED);
  });
});

// Ids up to 2^64 - 1 are stored as id - 2^63 (user-id.ts). Every reader must give them back
// exactly and in numeric order across 2^63, where a signed order would put the high half first.
describe('ids of 17 to 20 digits across 2^63 (stored as id - 2^63)', () => {
  const WIDE = [...MIXED_WIDTH_IDS];

  it('diffs, pages and places the lowest-N boundary in numeric order', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium' });
    await list(linkId, [...WIDE].reverse());
    expect(await listedUserAt(db.pool, linkId, 0)).toBe(10000000000000000n);
    expect(await listedUserAt(db.pool, linkId, 6)).toBe(TWO_POW_63);
    expect(await listedUserAt(db.pool, linkId, WIDE.length - 1)).toBe(MAX_USER_ID);
    expect(MAX_USER_ID).toBe(18446744073709551615n);
    expect((await diffRange(db.pool, linkId, 0n, MAX_USER_ID, null)).map((r) => r.userId)).toEqual(WIDE);
    // A boundary just below 2^63 keeps the high half out of the synced set.
    expect((await diffRange(db.pool, linkId, 0n, MAX_USER_ID, TWO_POW_63 - 1n)).map((r) => r.userId)).toEqual(
      WIDE.slice(0, 6),
    );
    expect(await nextRangeEnd(db.pool, linkId, TWO_POW_63 - 1n, 2)).toBe(TWO_POW_63 + 1n);
  });

  it('journals, records held samples and exports them exactly', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium' });
    await list(linkId, WIDE);
    await removeUser(db.pool, linkId, '9223372036854775808');
    await journalRepairs(db.pool, linkId, ['18446744073709551615', '10000000000000000', '9223372036854775807']);
    const { entries } = await readJournal(db.pool, linkId, 0n);
    expect(entries.map((e) => [e.op, e.userId])).toEqual([
      ['remove', '9223372036854775808'],
      ['repair', '10000000000000000'],
      ['repair', '9223372036854775807'],
      ['repair', '18446744073709551615'],
    ]);

    await recordHeldChange(db.pool, linkId, {
      previous: 13,
      next: 0,
      removals: 13,
      removalSample: ['18446744073709551615', '10000000000000000001', '9223372036854775808'],
    });
    expect((await latestHeldChange(db.pool, linkId))?.removalSample).toEqual([
      '18446744073709551615',
      '10000000000000000001',
      '9223372036854775808',
    ]);

    const { stream, done } = await streamUserIdsCsv(db.pool, linkId, 6);
    let csv = '';
    for await (const chunk of stream) csv += String(chunk);
    await done;
    const remaining = WIDE.filter((u) => u !== '9223372036854775808');
    expect(csv.trim().split('\n')).toEqual(['user_id,synced', ...remaining.map((u, i) => `${u},${i < 6 ? 't' : 'f'}`)]);
  });

  it('a PUT over a list reads them in two arrays (bigint up to 2^63 - 1, numeric above), deduplicated across both, in numeric order', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium' });
    await list(linkId, WIDE.slice(0, 4));
    const [narrow, wide] = idArrayParams([
      '9223372036854775808',
      ...WIDE,
      '9223372036854775807',
      '18446744073709551615',
    ]);
    expect(narrow.split(',')).toHaveLength(WIDE.filter((u) => BigInt(u) < TWO_POW_63).length + 1);
    expect(wide.split(',')).toHaveLength(WIDE.filter((u) => BigInt(u) >= TWO_POW_63).length + 2);
    const outcome = await replaceList(db.pool, {
      linkId,
      source: { kind: 'ids', ids: ['9223372036854775808', ...[...WIDE].reverse(), '9223372036854775807'] },
      storedLimit: 1000,
    });
    expect(outcome).toMatchObject({ kind: 'replaced', userCount: WIDE.length });
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT ${fromStored('user_id')} AS id FROM link_user WHERE link_id = $1 ORDER BY user_id`,
      [linkId],
    );
    expect(rows.map((r) => r.id)).toEqual(WIDE);
  });
});
