import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import { journalLinkChange } from '../list/list-changes.repo';
import { linksWantingSync } from './outbox.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

/** Moves the link's last mark into the past, as if its sync job had been lost that long ago. */
async function markedAgo(linkId: string, ms: number): Promise<void> {
  await db.pool.query(`UPDATE role_link SET updated_at = now() - $2 * interval '1 millisecond' WHERE id = $1`, [
    linkId,
    ms,
  ]);
}

describe('outbox repository (role_link.sync_wanted_seq > sync_done_seq)', () => {
  it('lists links marked and not synced whose mark is older than the fast path, in id order', async () => {
    const stale = await seedLink(db);
    const fresh = await seedLink(db);
    const synced = await seedLink(db);
    const stale2 = await seedLink(db);
    for (const l of [stale, fresh, synced, stale2]) await journalLinkChange(db.pool, l.linkId, 'walk');
    await db.pool.query('UPDATE role_link SET sync_done_seq = sync_wanted_seq WHERE id = $1', [synced.linkId]);
    for (const l of [stale, synced, stale2]) await markedAgo(l.linkId, 60_000);
    expect(await linksWantingSync(db.pool, 30_000)).toEqual([stale.linkId, stale2.linkId]);
    expect(await linksWantingSync(db.pool, 30_000, 1)).toEqual([stale.linkId]);
    expect(await linksWantingSync(db.pool, 120_000)).toEqual([]);
  });
});
