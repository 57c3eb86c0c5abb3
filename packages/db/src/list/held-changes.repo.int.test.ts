import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import {
  confirmLatestHeldChange,
  findConfirmation,
  latestConfirmedHeldChange,
  latestHeldChange,
  markResendRequested,
  recordHeldChange,
  spendConfirmation,
} from './held-changes.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const HOUR = 3_600_000;
const hold = (removalSample: string[] = []) => ({ previous: 10, next: 4, removals: 7, removalSample });

describe('held-changes repository (held_change, the shrink hold of spec 3.3)', () => {
  it('records a hold with its figures and sample, and notifies the owner in the same transaction', async () => {
    const { linkId, guildId } = await seedLink(db);
    const sample = userIds(2, 710000000000000000n);
    const change = await recordHeldChange(db.pool, linkId, hold(sample));
    // additions follow from the three numbers: next = previous − removals + additions.
    expect(change).toMatchObject({
      previous: 10,
      next: 4,
      removals: 7,
      additions: 1,
      removalSample: sample,
      confirmedAt: null,
    });
    expect(await latestHeldChange(db.pool, linkId)).toEqual({ ...change, usedAt: null });
    const { rows } = await db.pool.query<{ kind: string }>('SELECT kind FROM notification WHERE guild_id = $1', [
      guildId,
    ]);
    expect(rows).toEqual([{ kind: 'removal_held' }]);

    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await recordHeldChange(c, linkId, hold());
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    expect((await latestHeldChange(db.pool, linkId))!.changeId).toBe(change.changeId);
    expect((await db.pool.query('SELECT 1 FROM notification WHERE guild_id = $1', [guildId])).rowCount).toBe(1);
  });

  it('accepts a header naming the latest hold within the hour, once; refuses other, spent or expired ones', async () => {
    const { linkId } = await seedLink(db);
    const older = await recordHeldChange(db.pool, linkId, hold());
    const latest = await recordHeldChange(db.pool, linkId, hold());
    expect(await findConfirmation(db.pool, linkId, undefined)).toBeNull();
    expect(await findConfirmation(db.pool, linkId, older.changeId)).toEqual({
      invalid: 'the confirmation does not name the latest held change',
    });
    expect(
      await findConfirmation(db.pool, linkId, latest.changeId, new Date(latest.createdAt.getTime() + HOUR + 1)),
    ).toEqual({ invalid: 'the confirmation expired (one hour)' });
    expect(await findConfirmation(db.pool, linkId, latest.changeId)).toEqual({
      changeId: latest.changeId,
      via: 'header',
    });
    await spendConfirmation(db.pool, latest.changeId);
    expect(await findConfirmation(db.pool, linkId, latest.changeId)).toEqual({
      invalid: 'the confirmation was already used',
    });
    expect(await findConfirmation(db.pool, '999999999', latest.changeId)).toEqual({
      invalid: 'the confirmation does not name the latest held change',
    });
  });

  it("opens the owner's window on the latest hold only, named or not, and never on a spent one", async () => {
    const { linkId } = await seedLink(db);
    const older = await recordHeldChange(db.pool, linkId, hold());
    const latest = await recordHeldChange(db.pool, linkId, hold());
    expect(await confirmLatestHeldChange(db.pool, linkId, older.changeId)).toBeNull();
    const confirmed = await confirmLatestHeldChange(db.pool, linkId, latest.changeId);
    expect(confirmed).toMatchObject({ changeId: latest.changeId });
    expect(confirmed!.confirmedAt).toBeInstanceOf(Date);
    // The dashboard's confirmation lets a write through without a header, for an hour after confirming.
    expect(await findConfirmation(db.pool, linkId, undefined)).toEqual({ changeId: latest.changeId, via: 'dashboard' });
    expect(
      await findConfirmation(db.pool, linkId, undefined, new Date(confirmed!.confirmedAt!.getTime() + HOUR + 1)),
    ).toBeNull();
    await spendConfirmation(db.pool, latest.changeId);
    expect(await findConfirmation(db.pool, linkId, undefined)).toBeNull();
    expect(await confirmLatestHeldChange(db.pool, linkId)).toBeNull();
  });

  it('finds the latest applied hold (of a kind, if named) with when the list arrived and when a resend was asked', async () => {
    const { linkId } = await seedLink(db);
    const first = await recordHeldChange(db.pool, linkId, hold());
    expect(await latestConfirmedHeldChange(db.pool, linkId)).toBeNull();
    await confirmLatestHeldChange(db.pool, linkId);
    expect(await latestConfirmedHeldChange(db.pool, linkId)).toMatchObject({
      changeId: first.changeId,
      kind: 'shrink',
      confirmedAt: expect.any(Date),
      usedAt: null,
      resendRequestedAt: null,
    });
    await spendConfirmation(db.pool, first.changeId);
    expect((await latestConfirmedHeldChange(db.pool, linkId))!.usedAt).toBeInstanceOf(Date);
    // A newer hold that nobody applied is not an applied one; an applied admin-source hold is, unless shrink is asked for.
    await recordHeldChange(db.pool, linkId, hold());
    expect((await latestConfirmedHeldChange(db.pool, linkId))!.changeId).toBe(first.changeId);
    const admin = await recordHeldChange(db.pool, linkId, { ...hold(), kind: 'admin_source' });
    await confirmLatestHeldChange(db.pool, linkId, admin.changeId);
    expect((await latestConfirmedHeldChange(db.pool, linkId))!.changeId).toBe(admin.changeId);
    expect((await latestConfirmedHeldChange(db.pool, linkId, 'shrink'))!.changeId).toBe(first.changeId);
  });

  it('takes one resend request per interval, also when two arrive at once', async () => {
    const { linkId } = await seedLink(db);
    const change = await recordHeldChange(db.pool, linkId, hold());
    const both = await Promise.all([
      markResendRequested(db.pool, change.changeId, 5 * 60_000),
      markResendRequested(db.pool, change.changeId, 5 * 60_000),
    ]);
    expect(both.map((r) => r.fresh).sort()).toEqual([false, true]);
    expect(both[0].requestedAt).toEqual(both[1].requestedAt);
    expect((await latestHeldChange(db.pool, linkId))!.changeId).toBe(change.changeId);
    // Once the interval has passed, the next request is taken again.
    await db.pool.query(
      "UPDATE held_change SET resend_requested_at = resend_requested_at - interval '5 minutes' WHERE change_id = $1",
      [change.changeId],
    );
    expect(await markResendRequested(db.pool, change.changeId, 5 * 60_000)).toMatchObject({ fresh: true });
    expect(await markResendRequested(db.pool, change.changeId, 5 * 60_000)).toMatchObject({ fresh: false });
  });
});
