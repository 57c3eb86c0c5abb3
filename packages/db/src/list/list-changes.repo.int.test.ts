import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedGuild, seedLink, userIds } from '../../../../test/support/fixtures';
import {
  compactJournal,
  JOURNAL_MAX_USERS,
  journalAt,
  journalGuildChange,
  journalLinkChange,
  journalRepairs,
  readJournal,
} from './list-changes.repo';
import { addUsers } from './list-single.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function seqOf(linkId: string): Promise<bigint> {
  const { rows } = await db.pool.query<{ seq: string }>(
    'SELECT sync_wanted_seq::text AS seq FROM role_link WHERE id = $1',
    [linkId],
  );
  return BigInt(rows[0]!.seq);
}

describe('list-changes repository (the list_change journal)', () => {
  it('journals a link-level op under a new sequence, or under one the caller took', async () => {
    const { linkId } = await seedLink(db);
    const start = await seqOf(linkId);
    await journalLinkChange(db.pool, linkId, 'walk');
    expect(await seqOf(linkId)).toBe(start + 1n);
    // A writer that took the next sequence itself (as replaceList does under the link's lock).
    const { rows } = await db.pool.query<{ seq: string }>(
      'UPDATE role_link SET sync_wanted_seq = sync_wanted_seq + 1 WHERE id = $1 RETURNING sync_wanted_seq::text AS seq',
      [linkId],
    );
    await journalAt(db.pool, linkId, rows[0]!.seq, 'link');
    expect((await readJournal(db.pool, linkId, start)).entries).toEqual([
      { seq: start + 1n, userId: '0', op: 'walk' },
      { seq: start + 2n, userId: '0', op: 'link' },
    ]);
  });

  it('reads whole sequences only: a limit inside a sequence ends the page before it', async () => {
    const { linkId } = await seedLink(db);
    const start = await seqOf(linkId);
    const ids = userIds(5, 610000000000000000n);
    await addUsers(db.pool, linkId, ids.slice(0, 3), 100); // seq start+1: 3 adds
    await addUsers(db.pool, linkId, ids.slice(3), 100); // seq start+2: 2 adds
    const page = await readJournal(db.pool, linkId, start, 4);
    expect(page.more).toBe(true);
    expect(page.entries.map((e) => [e.seq, e.userId])).toEqual(ids.slice(0, 3).map((u) => [start + 1n, u]));
    const rest = await readJournal(db.pool, linkId, start + 1n, 4);
    expect(rest).toEqual({
      more: false,
      entries: ids.slice(3).map((u) => ({ seq: start + 2n, userId: u, op: 'add' })),
    });
    // One sequence larger than the limit is taken whole.
    expect((await readJournal(db.pool, linkId, start, 2)).entries).toHaveLength(3);
  });

  it('journals repairs per user, or one walk past a journal batch, and nothing for none', async () => {
    const { linkId } = await seedLink(db);
    const start = await seqOf(linkId);
    await journalRepairs(db.pool, linkId, []);
    expect(await seqOf(linkId)).toBe(start);
    const ids = userIds(2, 620000000000000000n);
    await journalRepairs(db.pool, linkId, ids);
    expect((await readJournal(db.pool, linkId, start)).entries).toEqual(
      ids.map((u) => ({ seq: start + 1n, userId: u, op: 'repair' })),
    );
    await journalRepairs(db.pool, linkId, userIds(JOURNAL_MAX_USERS + 1, 630000000000000000n));
    expect((await readJournal(db.pool, linkId, start + 1n)).entries).toEqual([
      { seq: start + 2n, userId: '0', op: 'walk' },
    ]);
  });

  it("journals a guild's plan change on each of its links, and none of another guild's", async () => {
    const guildId = await seedGuild(db);
    const a = await seedLink(db, { guildId });
    const b = await seedLink(db, { guildId });
    const other = await seedLink(db);
    const otherSeq = await seqOf(other.linkId);
    expect(await journalGuildChange(db.pool, guildId)).toEqual(
      [a.linkId, b.linkId].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1)),
    );
    expect((await readJournal(db.pool, a.linkId, 0n)).entries.map((e) => e.op)).toEqual(['link']);
    expect(await seqOf(other.linkId)).toBe(otherSeq);
    expect(await journalGuildChange(db.pool, '1')).toEqual([]);
  });

  it('compacts entries up to a sequence and keeps the later ones', async () => {
    const { linkId } = await seedLink(db);
    const start = await seqOf(linkId);
    await journalLinkChange(db.pool, linkId, 'walk');
    await journalLinkChange(db.pool, linkId, 'link');
    expect(await compactJournal(db.pool, linkId, start + 1n)).toBe(1);
    expect((await readJournal(db.pool, linkId, 0n)).entries).toEqual([{ seq: start + 2n, userId: '0', op: 'link' }]);
    expect(await compactJournal(db.pool, linkId, start + 1n)).toBe(0);
  });
});
