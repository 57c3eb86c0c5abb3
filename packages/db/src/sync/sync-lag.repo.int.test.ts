import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import { journalLinkChange } from '../list/list-changes.repo';
import { readSyncLag } from './sync-lag.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('sync-lag repository (the sync lag metrics)', () => {
  it('reads zeros when every link is synced', async () => {
    await seedLink(db);
    expect(await readSyncLag(db.pool)).toEqual({
      linksBehind: 0,
      pendingChanges: 0,
      maxLinkPendingChanges: 0,
      oldestUnappliedSeconds: 0,
    });
  });

  it('counts links behind, sums pending changes and ages the oldest unapplied journal entry', async () => {
    const a = await seedLink(db);
    const b = await seedLink(db);
    const done = await seedLink(db);
    await journalLinkChange(db.pool, a.linkId, 'walk');
    await journalLinkChange(db.pool, b.linkId, 'walk');
    await journalLinkChange(db.pool, done.linkId, 'walk');
    await db.pool.query(`UPDATE list_change SET created_at = now() - interval '90 seconds' WHERE link_id = $1`, [
      a.linkId,
    ]);
    // done: applied (its entry waits for compaction and does not count), still measuring 4 changes left.
    await db.pool.query('UPDATE role_link SET sync_done_seq = sync_wanted_seq, pending_count = 4 WHERE id = $1', [
      done.linkId,
    ]);
    await db.pool.query(`UPDATE list_change SET created_at = now() - interval '1 hour' WHERE link_id = $1`, [
      done.linkId,
    ]);
    await db.pool.query('UPDATE role_link SET pending_count = 7 WHERE id = $1', [b.linkId]);
    const lag = await readSyncLag(db.pool);
    expect(lag).toMatchObject({ linksBehind: 2, pendingChanges: 11, maxLinkPendingChanges: 7 });
    expect(lag.oldestUnappliedSeconds).toBeGreaterThanOrEqual(90);
    expect(lag.oldestUnappliedSeconds).toBeLessThan(3600);
  });
});
