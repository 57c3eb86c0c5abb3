import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink } from '../../../../test/support/fixtures';
import {
  abandonPass,
  advancePass,
  backOffLink,
  clearBackoff,
  clearPassCursor,
  countCalls,
  deleteSyncState,
  loadPass,
  recordJournalApplied,
  startPass,
} from './sync-state.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const stateRows = async (linkId: string) =>
  (await db.pool.query('SELECT 1 FROM link_sync_state WHERE link_id = $1', [linkId])).rowCount;

describe('sync-state repository (link_sync_state)', () => {
  it("creates a link's state on first load, with no pass under way", async () => {
    const { linkId } = await seedLink(db);
    const pass = await loadPass(db.pool, linkId);
    expect(pass).toMatchObject({
      passSeq: 0n,
      cursor: null,
      desiredSeen: 0,
      appliedSeen: 0,
      changes: 0,
      adds: 0,
      backoffCount: 0,
      backoffLeftMs: 0,
      journalSeq: null,
      appliedLimit: null,
      appliedCutoff: null,
    });
    await loadPass(db.pool, linkId);
    expect(await stateRows(linkId)).toBe(1);
  });

  it('starts a walk, advances it range by range and counts unfinished calls', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await startPass(db.pool, linkId, 7n, 40, { limit: 100, cutoff: 123456789012345678n }, 0);
    let pass = await loadPass(db.pool, linkId);
    expect(pass).toMatchObject({
      passSeq: 7n,
      cursor: 0n,
      baseApplied: 40,
      appliedLimit: 100,
      appliedCutoff: 123456789012345678n,
      nextRetryAt: null,
    });
    expect(pass.passStartedAt).toBeInstanceOf(Date);

    const soon = new Date(Date.now() + 60_000);
    const later = new Date(Date.now() + 120_000);
    await advancePass(db.pool, linkId, {
      cursor: 500n,
      desired: 10,
      applied: 8,
      changes: 3,
      adds: 2,
      nextRetryAt: later,
    });
    await advancePass(db.pool, linkId, {
      cursor: 900n,
      desired: 5,
      applied: 5,
      changes: 1,
      adds: 1,
      nextRetryAt: soon,
    });
    await advancePass(db.pool, linkId, {
      cursor: 950n,
      desired: 0,
      applied: 0,
      changes: 0,
      adds: 0,
      nextRetryAt: null,
    });
    await countCalls(db.pool, linkId, 4, 1);
    await countCalls(db.pool, linkId, 0, 0);
    pass = await loadPass(db.pool, linkId);
    expect(pass).toMatchObject({ cursor: 950n, desiredSeen: 15, appliedSeen: 13, changes: 8, adds: 4 });
    // The earliest retry of the pass is kept.
    expect(pass.nextRetryAt!.getTime()).toBe(soon.getTime());

    await clearPassCursor(db.pool, linkId);
    expect((await loadPass(db.pool, linkId)).cursor).toBeNull();
  });

  it('abandons a walk: the journal position goes with an unfinished one, stays without one', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await recordJournalApplied(db.pool, linkId, { seq: 5n, cutoff: null, limit: 100 });
    await abandonPass(db.pool, linkId);
    expect((await loadPass(db.pool, linkId)).journalSeq).toBe(5n);

    await startPass(db.pool, linkId, 6n, 0, { limit: 100, cutoff: null }, 0);
    await abandonPass(db.pool, linkId);
    const pass = await loadPass(db.pool, linkId);
    expect(pass.cursor).toBeNull();
    expect(pass.journalSeq).toBeNull();
  });

  it('never moves the journal position backwards', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await recordJournalApplied(db.pool, linkId, { seq: 9n, cutoff: 42n, limit: 10 });
    await recordJournalApplied(db.pool, linkId, { seq: 4n, cutoff: 42n, limit: 10 });
    expect(await loadPass(db.pool, linkId)).toMatchObject({ journalSeq: 9n, appliedCutoff: 42n, appliedLimit: 10 });
  });

  it('backs a link off from a minute, doubling, and clears the back-off', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    expect(await backOffLink(db.pool, linkId)).toBe(60_000);
    expect(await backOffLink(db.pool, linkId)).toBe(120_000);
    let pass = await loadPass(db.pool, linkId);
    expect(pass.backoffCount).toBe(2);
    expect(pass.backoffLeftMs).toBeGreaterThan(60_000);
    expect(pass.backoffLeftMs).toBeLessThanOrEqual(120_000);

    await clearBackoff(db.pool, linkId);
    pass = await loadPass(db.pool, linkId);
    expect(pass).toMatchObject({ backoffCount: 0, backoffUntil: null, backoffLeftMs: 0 });
  });

  it('has no back-off left once it ended now, though the column rounds the time up', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await backOffLink(db.pool, linkId);
    await inLateHalfMillisecond(db.pool, async (c) => {
      await c.query('UPDATE link_sync_state SET backoff_until = localtimestamp WHERE link_id = $1', [linkId]);
      expect((await loadPass(c, linkId)).backoffLeftMs).toBe(0);
    });
  });

  it('caps the link back-off at an hour', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    let ms = 0;
    for (let i = 0; i < 10; i++) ms = await backOffLink(db.pool, linkId);
    expect(ms).toBe(3_600_000);
  });

  it('deletes the state of a link that is gone', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await deleteSyncState(db.pool, linkId);
    expect(await stateRows(linkId)).toBe(0);
  });
});
