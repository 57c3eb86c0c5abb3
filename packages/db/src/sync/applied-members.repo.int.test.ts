import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import {
  diffUsers,
  dueRetries,
  grantedAmong,
  grantedCount,
  grantedHolders,
  nextRetryInMs,
} from './applied-members.repo';
import { recordOutcome } from './applied-outcomes.repo';
import { forceResync, recordHolderPage } from '../links/link-admin.repo';
import { addUsers } from '../list/list-single.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

/** Ends every back-off of the link now (as if its time had come). */
async function backOffsDue(linkId: string): Promise<void> {
  await db.pool.query(
    `UPDATE applied_member SET next_retry_at = localtimestamp - interval '1 second' WHERE link_id = $1 AND next_retry_at IS NOT NULL`,
    [linkId],
  );
}

describe('applied-members repository (applied_member read for a pass and a strip)', () => {
  it('diffs given users against the list and the applied record, returning only those that need something', async () => {
    const { linkId } = await seedLink(db);
    const [listedNew, listedApplied, listedAbove, removedFromList, failed, untouched] = userIds(6, 910000000000000000n);
    await addUsers(db.pool, linkId, [listedNew!, listedApplied!, listedAbove!, failed!], 100);
    await recordOutcome.added(db.pool, linkId, listedApplied!);
    await recordOutcome.added(db.pool, linkId, listedAbove!);
    await recordOutcome.added(db.pool, linkId, removedFromList!);
    await recordOutcome.addFailed(db.pool, linkId, failed!, 'failed');
    const all = [untouched!, failed!, removedFromList!, listedAbove!, listedApplied!, listedNew!];
    // Cutoff: the synced set ends below listedAbove, so its role must go (ids ascend in the order declared).
    const diff = await diffUsers(db.pool, linkId, all, BigInt(listedAbove!) - 1n);
    expect(diff.map((d) => [d.userId, d.desired, d.outcome, d.due, d.hasError])).toEqual([
      [listedNew, true, null, true, false],
      [listedAbove, false, 'applied', true, false],
      [removedFromList, false, 'applied', true, false],
      [failed, false, 'failed', false, false], // above the cutoff too: its failed add is no longer wanted
    ]);
    expect(diff[3]!.nextRetryAt).toBeInstanceOf(Date);
    // No cutoff: everyone listed is desired.
    expect((await diffUsers(db.pool, linkId, all, null)).map((d) => d.userId)).toEqual([
      listedNew,
      removedFromList,
      failed,
    ]);
    expect(await diffUsers(db.pool, linkId, [], null)).toEqual([]);
  });

  it('lists due retries and tells how long until the next one', async () => {
    const { linkId } = await seedLink(db);
    expect(await nextRetryInMs(db.pool, linkId)).toBeNull();
    const [a, b] = userIds(2, 920000000000000000n);
    await recordOutcome.addFailed(db.pool, linkId, a!, 'failed');
    await recordOutcome.addFailed(db.pool, linkId, b!, 'not_in_guild');
    expect(await dueRetries(db.pool, linkId)).toEqual([]);
    const wait = await nextRetryInMs(db.pool, linkId);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(30_000); // the shorter of the two back-offs (a failed add's first)
    await backOffsDue(linkId);
    expect((await dueRetries(db.pool, linkId)).sort()).toEqual([a, b]);
    expect(await dueRetries(db.pool, linkId, 1)).toHaveLength(1);
    expect(await nextRetryInMs(db.pool, linkId)).toBeLessThanOrEqual(0);
  });

  it('takes a back-off ended now (Resync now) as due at once, though the column rounds the time up', async () => {
    const { linkId } = await seedLink(db);
    const [u] = userIds(1, 925000000000000000n);
    await addUsers(db.pool, linkId, [u!], 100);
    await recordOutcome.addFailed(db.pool, linkId, u!, 'failed');
    await inLateHalfMillisecond(db.pool, async (c) => {
      expect(await forceResync(c, linkId)).toEqual({ retried: 1 });
      expect(await dueRetries(c, linkId)).toEqual([u]);
      expect((await diffUsers(c, linkId, [u!], null)).map((d) => d.due)).toEqual([true]);
      expect(await nextRetryInMs(c, linkId)).toBeLessThanOrEqual(0);
    });
  });

  it('counts and pages the holders this link granted the role to, never those found holding it', async () => {
    const { linkId } = await seedLink(db, { memberMode: 'keep' });
    const granted = userIds(3, 930000000000000000n);
    const found = userIds(2, 940000000000000000n);
    for (const u of granted) await recordOutcome.added(db.pool, linkId, u);
    await recordHolderPage(db.pool, linkId, found, true);
    await recordOutcome.removed(db.pool, linkId, granted[2]!);
    expect(await grantedCount(db.pool, linkId)).toBe(2);
    expect(await grantedHolders(db.pool, linkId, '0', 1)).toEqual([granted[0]]);
    expect(await grantedHolders(db.pool, linkId, granted[0]!, 10)).toEqual([granted[1]]);
    expect(await grantedAmong(db.pool, linkId, [...found, ...granted])).toEqual(granted.slice(0, 2));
    expect(await grantedAmong(db.pool, linkId, [])).toEqual([]);
  });
});
