import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { NOT_IN_GUILD_RETRY_MS, recordOutcome, retryDelayMs } from './applied-outcomes.repo';
import { grantedAmong, grantedCount, grantedHolders } from './applied-members.repo';
import { recordHolderPage } from '../links/link-admin.repo';
import { databaseNow, markHandAdded } from './reconcile.repo';
import { toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

type Row = { outcome: string; attempts: number; last_error: string | null; retry_in_ms: number | null };

async function row(linkId: string, userId: string): Promise<Row | undefined> {
  const { rows } = await db.pool.query<Row>(
    `SELECT outcome, attempts, last_error, (EXTRACT(EPOCH FROM (next_retry_at - localtimestamp)) * 1000)::float8 AS retry_in_ms
       FROM applied_member WHERE link_id = $1 AND user_id = ${toStored('$2')}`,
    [linkId, userId],
  );
  return rows[0];
}

describe('applied-outcomes repository (applied_member, one user at a time)', () => {
  it('records an add and clears any earlier failure', async () => {
    const { linkId } = await seedLink(db);
    const [u] = userIds(1);
    await recordOutcome.addFailed(db.pool, linkId, u!, 'failed');
    await recordOutcome.added(db.pool, linkId, u!);
    expect(await row(linkId, u!)).toEqual({ outcome: 'applied', attempts: 0, last_error: null, retry_in_ms: null });
  });

  it('backs a refused add off from 30 s, doubling per attempt; not in guild waits a day', async () => {
    const { linkId } = await seedLink(db);
    const [u, v] = userIds(2);
    const first = await recordOutcome.addFailed(db.pool, linkId, u!, 'missing_permission');
    expect(first).toBeInstanceOf(Date);
    expect((await row(linkId, u!))!.retry_in_ms).toBeGreaterThan(retryDelayMs(1) - 5_000);
    await recordOutcome.addFailed(db.pool, linkId, u!, 'missing_permission');
    const again = (await row(linkId, u!))!;
    expect(again).toMatchObject({ outcome: 'missing_permission', attempts: 2 });
    expect(again.retry_in_ms).toBeGreaterThan(retryDelayMs(2) - 5_000);
    // Both bounds carry the same slack: the two statements read the wall clock separately, and a clock
    // stepped back by microseconds between them (seen in CI: 60000.015) must not fail the test. 5 s still
    // tells attempt 2 (60 s) from attempts 1 (30 s) and 3 (120 s).
    expect(again.retry_in_ms).toBeLessThanOrEqual(retryDelayMs(2) + 5_000);

    await recordOutcome.addFailed(db.pool, linkId, v!, 'not_in_guild');
    expect((await row(linkId, v!))!.retry_in_ms).toBeGreaterThan(NOT_IN_GUILD_RETRY_MS - 5_000);
  });

  it('records a removal as the removed tombstone; a refused one keeps the role and the error', async () => {
    const { linkId } = await seedLink(db);
    const [u, v] = userIds(2, 300000000000000000n);
    await recordOutcome.added(db.pool, linkId, u!);
    await recordOutcome.added(db.pool, linkId, v!);
    await recordOutcome.removed(db.pool, linkId, u!);
    expect(await row(linkId, u!)).toEqual({ outcome: 'removed', attempts: 0, last_error: null, retry_in_ms: null });

    const next = await recordOutcome.removeFailed(db.pool, linkId, v!, 'failed');
    expect(next).toBeInstanceOf(Date);
    expect(await row(linkId, v!)).toMatchObject({ outcome: 'applied', attempts: 1, last_error: 'failed' });
    expect(await recordOutcome.removeFailed(db.pool, linkId, '999999999999999999', 'failed')).toBeNull();

    await recordOutcome.clearError(db.pool, linkId, v!);
    expect(await row(linkId, v!)).toEqual({ outcome: 'applied', attempts: 0, last_error: null, retry_in_ms: null });
  });

  it('forgets only records of users who never got the role', async () => {
    const { linkId } = await seedLink(db);
    const [held, tomb, failed] = userIds(3, 310000000000000000n);
    await recordOutcome.added(db.pool, linkId, held!);
    await recordOutcome.added(db.pool, linkId, tomb!);
    await recordOutcome.removed(db.pool, linkId, tomb!);
    await recordOutcome.addFailed(db.pool, linkId, failed!, 'failed');
    await recordOutcome.forget(db.pool, linkId, []);
    await recordOutcome.forget(db.pool, linkId, [held!, tomb!, failed!]);
    expect((await row(linkId, held!))?.outcome).toBe('applied');
    expect((await row(linkId, tomb!))?.outcome).toBe('removed');
    expect(await row(linkId, failed!)).toBeUndefined();
  });

  it('records provenance: only the link’s own accepted add counts as granted, for a strip to take back', async () => {
    const { linkId } = await seedLink(db);
    const [found, added, handAdded, refound] = userIds(4);
    // Holders at creation (hand-over or keep): the link did not give them the role.
    await recordHolderPage(db.pool, linkId, [found!, refound!], false);
    await recordOutcome.added(db.pool, linkId, added!);
    // The reconcile sees a member with the role the record had as removed: a hand edit, not a grant.
    await recordOutcome.added(db.pool, linkId, handAdded!);
    await recordOutcome.removed(db.pool, linkId, handAdded!);
    // A member page read after the removal was recorded. updated_at keeps milliseconds, rounded (up to 0.5 ms
    // later than the clock), and databaseNow() rounds alike, so it may equal the record's time, which the
    // guard (strictly after) does not take: 2 ms later is after the record whatever the rounding.
    const pageReadAt = new Date((await databaseNow(db.pool)).getTime() + 2);
    expect(await markHandAdded(db.pool, linkId, [handAdded!], pageReadAt)).toEqual([handAdded]);
    expect(await grantedHolders(db.pool, linkId, '0', 10)).toEqual([added]);
    expect(await grantedCount(db.pool, linkId)).toBe(1);
    expect(await grantedAmong(db.pool, linkId, [found!, added!, handAdded!])).toEqual([added]);
    // A found holder the link later removes and adds again was granted by that add.
    await recordOutcome.removed(db.pool, linkId, refound!);
    await recordOutcome.added(db.pool, linkId, refound!);
    expect(await grantedHolders(db.pool, linkId, '0', 10)).toEqual([added, refound]);
  });
});
