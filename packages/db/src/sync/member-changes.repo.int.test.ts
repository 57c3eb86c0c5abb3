import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { MEMBER_HISTORY_KEEP, memberHistory, recordMemberChange } from './member-changes.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('member-changes repository (member_change, per-member history)', () => {
  it("keeps a member's newest changes, newest first, apart from other members and links", async () => {
    const { linkId } = await seedLink(db);
    const other = await seedLink(db);
    const [u, v] = userIds(2, 950000000000000000n);
    for (let i = 0; i < MEMBER_HISTORY_KEEP + 5; i++) {
      await recordMemberChange(db.pool, {
        linkId,
        userId: u!,
        action: i % 2 ? 'remove' : 'add',
        outcome: 'applied',
        cause: `step ${i}`,
      });
    }
    await recordMemberChange(db.pool, { linkId, userId: v!, action: 'add', outcome: 'not_in_guild', cause: 'journal' });
    await recordMemberChange(db.pool, {
      linkId: other.linkId,
      userId: u!,
      action: 'add',
      outcome: 'failed',
      cause: 'walk',
    });

    const history = await memberHistory(db.pool, linkId, u!);
    expect(history).toHaveLength(MEMBER_HISTORY_KEEP);
    expect(history[0]).toMatchObject({ action: 'add', outcome: 'applied', cause: `step ${MEMBER_HISTORY_KEEP + 4}` });
    expect(history[MEMBER_HISTORY_KEEP - 1]!.cause).toBe('step 5');
    expect(history[0]!.at.getTime()).toBeGreaterThanOrEqual(history[1]!.at.getTime());
    // Stored rows stay bounded too (the delete trims in the same statement), not only the read.
    const { rows } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM member_change WHERE link_id = $1',
      [linkId],
    );
    expect(rows[0]!.n).toBeLessThanOrEqual(MEMBER_HISTORY_KEEP + 2);
    expect(await memberHistory(db.pool, linkId, v!)).toEqual([
      expect.objectContaining({ action: 'add', outcome: 'not_in_guild', cause: 'journal' }),
    ]);
    expect(await memberHistory(db.pool, other.linkId, u!)).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    expect(await memberHistory(db.pool, other.linkId, v!)).toEqual([]);
  });
});
