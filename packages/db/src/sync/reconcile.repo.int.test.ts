import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedGuild, seedLink, userIds } from '../../../../test/support/fixtures';
import { databaseNow, markEligibleAgain, markHandAdded, markHandRemoved, reconcileLinks } from './reconcile.repo';
import { fromStored, toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function outcomes(linkId: string): Promise<Record<string, string>> {
  const { rows } = await db.pool.query<{ user_id: string; outcome: string }>(
    `SELECT ${fromStored('user_id')} AS user_id, outcome FROM applied_member WHERE link_id = $1`,
    [linkId],
  );
  return Object.fromEntries(rows.map((r) => [r.user_id, r.outcome]));
}

describe('reconcile repository (role_link reads, applied_member repairs)', () => {
  it("lists a guild's links with their slot rank and whether their sync is behind", async () => {
    const guildId = await seedGuild(db);
    const a = await seedLink(db, { guildId });
    const b = await seedLink(db, { guildId, enabled: false });
    await db.pool.query('UPDATE role_link SET sync_wanted_seq = 3 WHERE id = $1', [b.linkId]);
    await seedLink(db); // another guild
    const rows = await reconcileLinks(db.pool, guildId);
    expect(rows.map((r) => [r.id, r.rank, r.enabled, r.behind])).toEqual([
      [a.linkId, 0, true, false],
      [b.linkId, 1, false, true],
    ]);
    expect((await reconcileLinks(db.pool)).length).toBeGreaterThanOrEqual(3);
  });

  it('repairs the record from a member page, leaving records newer than the page alone', async () => {
    const { linkId } = await seedLink(db);
    const [handAdded, handRemoved, newer, keeps, outside, joined] = userIds(6, 330000000000000000n);
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, updated_at) VALUES
         ($1, ${toStored('$2')}, 'removed', localtimestamp - interval '1 minute'), ($1, ${toStored('$3')}, 'applied', localtimestamp - interval '1 minute'),
         ($1, ${toStored('$4')}, 'removed', localtimestamp + interval '1 minute'), ($1, ${toStored('$5')}, 'applied', localtimestamp - interval '1 minute'),
         ($1, ${toStored('$6')}, 'applied', localtimestamp - interval '1 minute'), ($1, ${toStored('$7')}, 'not_in_guild', localtimestamp - interval '1 minute')`,
      [linkId, handAdded, handRemoved, newer, keeps, outside, joined],
    );
    const seenAt = await databaseNow(db.pool);
    expect(seenAt).toBeInstanceOf(Date);

    expect(await markHandAdded(db.pool, linkId, [handAdded!, newer!, keeps!], seenAt)).toEqual([handAdded]);
    // The page covers (0, keeps]: `outside` is above it and stays applied.
    expect(
      await markHandRemoved(db.pool, linkId, { after: '0', upper: keeps!, holders: [handAdded!, keeps!] }, seenAt),
    ).toEqual([handRemoved]);
    expect(await markEligibleAgain(db.pool, linkId, [joined!, keeps!])).toEqual([joined]);
    expect(await outcomes(linkId)).toEqual({
      [handAdded!]: 'applied',
      [handRemoved!]: 'removed',
      [newer!]: 'removed',
      [keeps!]: 'applied',
      [outside!]: 'applied',
      [joined!]: 'not_in_guild',
    });
  });
});
