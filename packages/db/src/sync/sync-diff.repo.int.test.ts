import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { desiredInRange, diffRange, listedUserAt, nextRangeEnd } from './sync-diff.repo';
import { MAX_USER_ID, toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function list(linkId: string, ids: string[]): Promise<void> {
  await db.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u`,
    [linkId, ids],
  );
}

async function applied(
  linkId: string,
  rows: { userId: string; outcome: string; lastError?: string; retryInSec?: number }[],
): Promise<void> {
  for (const r of rows) {
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, last_error, next_retry_at)
       VALUES ($1, ${toStored('$2')}, $3, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE localtimestamp + make_interval(secs => $5::int) END)`,
      [linkId, r.userId, r.outcome, r.lastError ?? null, r.retryInSec ?? null],
    );
  }
}

describe('sync-diff repository (link_user against applied_member)', () => {
  it('ends a range at the span-th next id of whichever stream comes first, or at the top', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(10);
    await list(linkId, [u[0]!, u[2]!, u[4]!, u[6]!]);
    await applied(
      linkId,
      [u[1]!, u[3]!].map((userId) => ({ userId, outcome: 'applied' })),
    );
    expect(await nextRangeEnd(db.pool, linkId, 0n, 2)).toBe(BigInt(u[2]!)); // list: u0,u2 — applied: u1,u3
    expect(await nextRangeEnd(db.pool, linkId, BigInt(u[2]!), 2)).toBe(BigInt(u[6]!)); // list: u4,u6 — applied: u3 only
    expect(await nextRangeEnd(db.pool, linkId, BigInt(u[6]!), 2)).toBe(MAX_USER_ID);
  });

  it('returns only the rows that need something, in user-id order', async () => {
    const { linkId } = await seedLink(db);
    const [wanted, holding, stale, erred, gone, tomb, waiting] = userIds(7);
    await list(linkId, [wanted!, holding!, erred!, waiting!]);
    await applied(linkId, [
      { userId: holding!, outcome: 'applied' },
      { userId: stale!, outcome: 'applied' },
      { userId: erred!, outcome: 'applied', lastError: 'failed' },
      { userId: gone!, outcome: 'not_in_guild' },
      { userId: tomb!, outcome: 'removed' },
      { userId: waiting!, outcome: 'failed', retryInSec: 600 },
    ]);
    const rows = await diffRange(db.pool, linkId, 0n, MAX_USER_ID, null);
    expect(rows.map((r) => [r.userId, r.desired, r.outcome, r.due, r.hasError])).toEqual([
      [wanted, true, null, true, false],
      [stale, false, 'applied', true, false],
      [erred, true, 'applied', true, true],
      [gone, false, 'not_in_guild', true, false],
      [waiting, true, 'failed', false, false],
    ]);
    expect(rows[4]!.nextRetryAt).toBeInstanceOf(Date);
  });

  it('takes a retry made due now as due, though the column rounds the time up', async () => {
    const { linkId } = await seedLink(db);
    const [u] = userIds(1, 300000000000000000n);
    await list(linkId, [u!]);
    await applied(linkId, [{ userId: u!, outcome: 'failed', retryInSec: 600 }]);
    await inLateHalfMillisecond(db.pool, async (c) => {
      await c.query('UPDATE applied_member SET next_retry_at = localtimestamp WHERE link_id = $1', [linkId]);
      expect((await diffRange(c, linkId, 0n, MAX_USER_ID, null)).map((r) => [r.userId, r.due])).toEqual([[u, true]]);
    });
  });

  it('limits a range to (from, to] and treats ids above the cutoff as not desired', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(4);
    await list(linkId, u);
    await applied(linkId, [{ userId: u[3]!, outcome: 'applied' }]);
    const rows = await diffRange(db.pool, linkId, BigInt(u[0]!), MAX_USER_ID, BigInt(u[1]!));
    // u0 is outside the range, u1 is synced and missing, u2 is held (nothing to do), u3 is held but applied: remove.
    expect(rows.map((r) => [r.userId, r.desired])).toEqual([
      [u[1], true],
      [u[3], false],
    ]);
    expect(await desiredInRange(db.pool, linkId, 0n, MAX_USER_ID, BigInt(u[1]!))).toBe(2);
    expect(await desiredInRange(db.pool, linkId, BigInt(u[0]!), BigInt(u[2]!), null)).toBe(2);
    expect(await desiredInRange(db.pool, linkId, BigInt(u[2]!), MAX_USER_ID, BigInt(u[1]!))).toBe(0);
  });

  it('finds the listed id at an offset (the first held id), or null past the end', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(3, 200000000000000000n);
    await list(linkId, u);
    expect(await listedUserAt(db.pool, linkId, 0)).toBe(BigInt(u[0]!));
    expect(await listedUserAt(db.pool, linkId, 2)).toBe(BigInt(u[2]!));
    expect(await listedUserAt(db.pool, linkId, 3)).toBeNull();
  });
});
