import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { appliedOutcome, isListed, listedBelow } from './member-lookup.repo';
import { toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('member-lookup repository (one user on one link)', () => {
  it('tells whether a user is listed, how many listed ids lie below (bounded), and their recorded outcome', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(4, 350000000000000000n);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [linkId, u.slice(0, 3)],
    );
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'applied')`,
      [linkId, u[0]],
    );

    expect(await isListed(db.pool, linkId, u[2]!)).toBe(true);
    expect(await isListed(db.pool, linkId, u[3]!)).toBe(false);
    expect(await listedBelow(db.pool, linkId, u[2]!, 10)).toBe(2);
    expect(await listedBelow(db.pool, linkId, u[2]!, 1)).toBe(1);
    expect(await appliedOutcome(db.pool, linkId, u[0]!)).toMatchObject({ outcome: 'applied' });
    expect((await appliedOutcome(db.pool, linkId, u[0]!))!.updated_at).toBeInstanceOf(Date);
    expect(await appliedOutcome(db.pool, linkId, u[1]!)).toBeNull();
  });
});
