import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink } from '../../../test/support/fixtures';
import { grantedHolders } from './applied-members.repo';
import { addUser } from './list-single.repo';
import { readJournal } from './list-changes.repo';
import { diffRange, listedUserAt, MAX_USER_ID } from './sync-diff.repo';
import { toStored } from './user-id';

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

const MIXED = ['99999999999999998', '99999999999999999', '100000000000000000', '100000000000000001', '1000000000000000000', '9000000000000000000'];

async function list(linkId: string, ids: readonly string[]): Promise<void> {
  await db.pool.query(`INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u`, [linkId, ids]);
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

    await db.pool.query(`INSERT INTO applied_member (link_id, user_id, outcome, granted) SELECT $1, ${toStored('u')}, 'applied', true FROM unnest($2::numeric[]) u`, [linkId, MIXED]);
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
