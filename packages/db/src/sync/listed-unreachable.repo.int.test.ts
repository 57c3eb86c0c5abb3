import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { toStored } from '../client/user-id';
import { listedUnreachable } from './listed-unreachable.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

/** Lists `listed` on the link and records each of `outcomes` (user → outcome) in its applied record. */
async function seed(linkId: string, listed: readonly string[], outcomes: Record<string, string>): Promise<void> {
  await db.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
    [linkId, listed],
  );
  for (const [user, outcome] of Object.entries(outcomes))
    await db.pool.query(`INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, $3)`, [
      linkId,
      user,
      outcome,
    ]);
}

describe('listed-unreachable repository (listed users no role call can reach)', () => {
  it('counts listed users not in the server and deleted accounts, apart from every other outcome', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(6, 360000000000000000n);
    await seed(linkId, u, {
      [u[0]!]: 'not_in_guild',
      [u[1]!]: 'not_in_guild',
      [u[2]!]: 'unknown_user',
      [u[3]!]: 'applied',
      [u[4]!]: 'failed',
    });
    expect(await listedUnreachable(db.pool, linkId)).toEqual({ notInServer: 2, deleted: 1 });
  });

  it('leaves out users the list no longer names and other links, and is zero for a link without any', async () => {
    const a = await seedLink(db);
    const b = await seedLink(db);
    const u = userIds(3, 370000000000000000n);
    // u[1] and u[2] were unreachable once but are off the list now.
    await seed(a.linkId, [u[0]!], { [u[0]!]: 'unknown_user', [u[1]!]: 'not_in_guild', [u[2]!]: 'unknown_user' });
    expect(await listedUnreachable(db.pool, a.linkId)).toEqual({ notInServer: 0, deleted: 1 });
    expect(await listedUnreachable(db.pool, b.linkId)).toEqual({ notInServer: 0, deleted: 0 });
  });
});
