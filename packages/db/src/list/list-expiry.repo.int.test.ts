import { createTestDb, type TestDb } from '../../../../test/support/db';
import { listOf, seedLink, userIds } from '../../../../test/support/fixtures';
import { readJournal } from './list-changes.repo';
import { linksWithDueExpiries, listExpiries, removeExpired, userExpiry } from './list-expiry.repo';
import { replaceList } from './list-replace.repo';
import { addUsers, removeUsers } from './list-single.repo';
import { addChunk, createUpload } from './uploads.repo';
import { toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const NOW = new Date('2026-11-26T12:00:00.000Z');
const later = (s: number) => new Date(NOW.getTime() + s * 1000);

async function linkRow(linkId: string): Promise<{ user_count: number; seq: string; version: string }> {
  const { rows } = await db.pool.query<{ user_count: number; seq: string; version: string }>(
    'SELECT user_count, sync_wanted_seq::text AS seq, list_version::text AS version FROM role_link WHERE id = $1',
    [linkId],
  );
  return rows[0]!;
}

/** Everything a removal writes, journal entries without their (link-specific) sequence numbers. */
async function footprint(linkId: string, fromSeq: string) {
  const row = await linkRow(linkId);
  const journal = await readJournal(db.pool, linkId, BigInt(fromSeq));
  return {
    list: await listOf(db, linkId),
    userCount: row.user_count,
    sequences: new Set(journal.entries.map((e) => e.seq)).size,
    journal: journal.entries.map((e) => [e.userId, e.op]),
  };
}

describe('list-expiry repository (memberships that end on their own)', () => {
  it('stores an add’s expiry, replaces it on a re-add and clears it on a re-add without one', async () => {
    const { linkId } = await seedLink(db);
    const [a, b] = userIds(2, 520000000000000000n);
    await addUsers(db.pool, linkId, [a!, b!], 100, [later(60), null]);
    expect(await userExpiry(db.pool, linkId, a!)).toEqual(later(60));
    expect(await userExpiry(db.pool, linkId, b!)).toBeNull();
    const version = (await linkRow(linkId)).version;
    // Extending is not a list change: same version, no journal entry.
    const [again] = await addUsers(db.pool, linkId, [a!], 100, [later(3600)]);
    expect(again).toEqual({ added: false, atLimit: false, listVersion: version });
    expect(await userExpiry(db.pool, linkId, a!)).toEqual(later(3600));
    await addUsers(db.pool, linkId, [a!], 100);
    expect(await userExpiry(db.pool, linkId, a!)).toBeNull();
    expect(await listExpiries(db.pool, linkId)).toEqual([]);
    expect(await userExpiry(db.pool, linkId, userIds(1, 530000000000000000n)[0]!)).toBeUndefined();
  });

  it('removes due memberships exactly as a plugin’s DELETE of the same users would', async () => {
    const ids = userIds(5, 540000000000000000n);
    const [byExpiry, byDelete] = [await seedLink(db), await seedLink(db)];
    for (const { linkId } of [byExpiry, byDelete]) await addUsers(db.pool, linkId, ids, 100);
    // Two of five expire (one at NOW exactly, one before), one later, two never.
    await db.pool.query(
      `UPDATE link_user SET expires_at = x.at FROM unnest($2::numeric[], $3::timestamptz[]) x(id, at) WHERE link_id = $1 AND user_id = ${toStored('x.id')}`,
      [byExpiry.linkId, [ids[1], ids[3], ids[4]], [NOW, later(-30), later(30)]],
    );
    const seqs = [(await linkRow(byExpiry.linkId)).seq, (await linkRow(byDelete.linkId)).seq];
    expect(await linksWithDueExpiries(db.pool, NOW)).toContain(byExpiry.linkId);
    const removed = await removeExpired(db.pool, byExpiry.linkId, NOW);
    expect(removed.userIds.sort()).toEqual([ids[1], ids[3]]);
    expect(removed.listVersion).toBe((await linkRow(byExpiry.linkId)).version);
    await removeUsers(db.pool, byDelete.linkId, [ids[1]!, ids[3]!]);
    const expired = await footprint(byExpiry.linkId, seqs[0]!);
    expect(expired).toEqual(await footprint(byDelete.linkId, seqs[1]!));
    expect(expired).toEqual({
      list: [ids[0], ids[2], ids[4]],
      userCount: 3,
      sequences: 1,
      journal: [
        [ids[1], 'remove'],
        [ids[3], 'remove'],
      ],
    });
    // Nothing due any more: no write, no version.
    const version = (await linkRow(byExpiry.linkId)).version;
    expect(await removeExpired(db.pool, byExpiry.linkId, NOW)).toEqual({ userIds: [], listVersion: null });
    expect((await linkRow(byExpiry.linkId)).version).toBe(version);
    expect(await listExpiries(db.pool, byExpiry.linkId)).toEqual([{ userId: ids[4], expiresAt: later(30) }]);
  });

  it('bounds a statement to `limit` rows, earliest expiry first', async () => {
    const { linkId } = await seedLink(db);
    const ids = userIds(5, 550000000000000000n);
    await addUsers(db.pool, linkId, ids, 100, [later(5), later(1), later(4), later(2), later(3)]);
    const first = await removeExpired(db.pool, linkId, later(10), 2);
    expect(first.userIds.sort()).toEqual([ids[1], ids[3]]);
    expect((await removeExpired(db.pool, linkId, later(10), 10)).userIds).toHaveLength(3);
    expect((await linkRow(linkId)).user_count).toBe(0);
  });

  it('two sweepers on the same link remove and journal each user once', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium' });
    const ids = userIds(3_000, 560000000000000000n);
    await addUsers(
      db.pool,
      linkId,
      ids,
      30_000_000,
      ids.map(() => later(-1)),
    );
    const seq = (await linkRow(linkId)).seq;
    const results = await Promise.all([
      removeExpired(db.pool, linkId, NOW, 1_000),
      removeExpired(db.pool, linkId, NOW, 1_000),
      removeExpired(db.pool, linkId, NOW, 1_000),
      removeExpired(db.pool, linkId, NOW, 1_000),
    ]);
    const all = results.flatMap((r) => r.userIds);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(3_000);
    const journal = await readJournal(db.pool, linkId, BigInt(seq), 10_000);
    expect(journal.entries).toHaveLength(3_000);
    expect((await linkRow(linkId)).user_count).toBe(0);
  });

  it('leaves a membership a re-add extended while the sweep waited for the link', async () => {
    const { linkId } = await seedLink(db);
    const [a] = userIds(1, 570000000000000000n);
    await addUsers(db.pool, linkId, [a!], 100, [later(-1)]);
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT 1 FROM role_link WHERE id = $1 FOR UPDATE', [linkId]);
      const sweeping = removeExpired(db.pool, linkId, NOW);
      await c.query(`UPDATE link_user SET expires_at = $2 WHERE link_id = $1`, [linkId, later(60)]);
      await c.query('COMMIT');
      expect((await sweeping).userIds).toEqual([]);
    } finally {
      c.release();
    }
    expect(await listOf(db, linkId)).toEqual([a]);
  });

  it('a replace gives every listed user the expiry of the new list, none for a plain ID', async () => {
    const { linkId } = await seedLink(db, { plan: 'premium', firstList: true });
    const [a, b, c] = userIds(3, 580000000000000000n);
    const put = (ids: string[], expiries?: { ids: string[]; at: string[] }) =>
      replaceList(db.pool, { linkId, source: { kind: 'ids', ids, expiries }, storedLimit: 100 });
    expect(
      (await put([a!, b!, c!], { ids: [a!, c!], at: [later(10).toISOString(), later(20).toISOString()] })).kind,
    ).toBe('replaced');
    expect(await listExpiries(db.pool, linkId)).toEqual([
      { userId: a, expiresAt: later(10) },
      { userId: c, expiresAt: later(20) },
    ]);
    await put([a!, b!, c!]);
    expect(await listExpiries(db.pool, linkId)).toEqual([]);

    const upload = await createUpload(db.pool, linkId);
    await addChunk(db.pool, linkId, upload, [a!, b!], { ids: [b!], at: [later(5).toISOString()] });
    await addChunk(db.pool, linkId, upload, [b!, c!], { ids: [b!], at: [later(7).toISOString()] });
    expect(
      (await replaceList(db.pool, { linkId, source: { kind: 'upload', uploadId: upload }, storedLimit: 100 })).kind,
    ).toBe('replaced');
    expect(await listExpiries(db.pool, linkId)).toEqual([{ userId: b, expiresAt: later(7) }]);
  });
});
