import { createTestDb, type TestDb } from '../../../../test/support/db';
import { listCounters, seedLink, userIds } from '../../../../test/support/fixtures';
import { readJournal } from './list-changes.repo';
import { addUser, addUsers, hasUser, removeUser } from './list-single.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const linkRow = (linkId: string) => listCounters(db, linkId);

describe('list-single repository (single adds and removes of link_user)', () => {
  it('adds users in array order up to the stored limit, in one version and one journal sequence', async () => {
    const { linkId } = await seedLink(db);
    const before = await linkRow(linkId);
    const [a, b, c] = userIds(3, 510000000000000000n);
    const results = await addUsers(db.pool, linkId, [c!, a!, b!], 2);
    expect(results.map((r) => [r.added, r.atLimit])).toEqual([
      [true, false],
      [true, false],
      [false, true],
    ]);
    const after = await linkRow(linkId);
    expect(after.user_count).toBe(2);
    expect(BigInt(after.version)).toBe(BigInt(before.version) + 1n);
    expect(results.every((r) => r.listVersion === after.version)).toBe(true);
    const journal = await readJournal(db.pool, linkId, BigInt(before.seq));
    expect(journal.entries).toEqual([
      { seq: BigInt(after.seq), userId: a, op: 'add' },
      { seq: BigInt(after.seq), userId: c, op: 'add' },
    ]);
    expect(await hasUser(db.pool, linkId, c!)).toBe(true);
    expect(await hasUser(db.pool, linkId, b!)).toBe(false);
  });

  it('adds a listed user again as a no-op: not added, not at the limit, nothing bumped', async () => {
    const { linkId } = await seedLink(db);
    const [u] = userIds(1, 520000000000000000n);
    expect(await addUser(db.pool, linkId, u!, 1)).toMatchObject({ added: true, atLimit: false });
    const before = await linkRow(linkId);
    expect(await addUser(db.pool, linkId, u!, 1)).toEqual({
      added: false,
      atLimit: false,
      listVersion: before.version,
    });
    expect(await linkRow(linkId)).toEqual(before);
  });

  it('removes a listed user with one journaled remove; removing an absent one changes nothing', async () => {
    const { linkId } = await seedLink(db);
    const [u, v] = userIds(2, 530000000000000000n);
    await addUsers(db.pool, linkId, [u!, v!], 10);
    const before = await linkRow(linkId);
    const removed = await removeUser(db.pool, linkId, u!);
    const after = await linkRow(linkId);
    expect(removed).toEqual({ removed: true, listVersion: after.version });
    expect(after.user_count).toBe(1);
    expect((await readJournal(db.pool, linkId, BigInt(before.seq))).entries).toEqual([
      { seq: BigInt(after.seq), userId: u, op: 'remove' },
    ]);
    expect(await hasUser(db.pool, linkId, u!)).toBe(false);
    expect(await removeUser(db.pool, linkId, u!)).toEqual({ removed: false, listVersion: after.version });
    expect(await linkRow(linkId)).toEqual(after);
  });

  it('joins the caller transaction: a rolled-back add leaves no row, count or journal entry', async () => {
    const { linkId } = await seedLink(db);
    const before = await linkRow(linkId);
    const [u] = userIds(1, 540000000000000000n);
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      expect((await addUser(c, linkId, u!, 5)).added).toBe(true);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    expect(await hasUser(db.pool, linkId, u!)).toBe(false);
    expect(await linkRow(linkId)).toEqual(before);
    expect((await readJournal(db.pool, linkId, BigInt(before.seq))).entries).toEqual([]);
  });

  it('adds nothing to an unknown link', async () => {
    const [u] = userIds(1, 550000000000000000n);
    expect(await addUser(db.pool, '999999999', u!, 5)).toMatchObject({ added: false });
    expect(await hasUser(db.pool, '999999999', u!)).toBe(false);
  });
});
