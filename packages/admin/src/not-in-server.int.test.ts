// Listed users who are not in the server (issue 34, part 3): shown as "listed, not in the server", never
// as holding the role, and counted apart so progress reaches "up to date". The rows are what the bot
// worker writes: applied_member outcome `not_in_guild` for an add answered Unknown Member (10007), and a
// finished pass's counts (applied = holders seen, pending = listed − applied).
import { toStored } from '@rolelink/db/client';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, userIds } from '../../../test/support/fixtures';
import { showLink } from './link-show';
import { lookupMember } from './member-lookup';
import { testAdminDeps } from './testing/deps';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function listed(linkId: string, users: string[], outcome: (u: string) => string): Promise<void> {
  await db.pool.query(`INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u`, [linkId, users]);
  for (const u of users) await db.pool.query(`INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, $3)`, [linkId, u, outcome(u)]);
}

describe('listed users who are not in the server', () => {
  it('are counted apart from synced and pending, so a finished sync is up to date with them named', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const users = userIds(10, 300000000000000000n);
    const absent = new Set(users.slice(7));
    await listed(link.linkId, users, (u) => (absent.has(u) ? 'not_in_guild' : 'applied'));
    // What finishPass writes: 7 holders seen, 10 listed, so 3 "pending" by the worker's measure.
    await db.pool.query('UPDATE role_link SET user_count = 10, applied_count = 7, pending_count = 3, sync_done_seq = sync_wanted_seq WHERE id = $1', [link.linkId]);
    const view = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts).toEqual({ user_count: 10, synced_count: 7, pending_count: 0, held_count: 0, not_in_server_count: 3 });
    expect(view.sync.eta_seconds).toBe(0);
  });

  it('stop counting once the plugin no longer lists them', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const [gone] = userIds(1, 310000000000000000n);
    await db.pool.query(`INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'not_in_guild')`, [link.linkId, gone]);
    const view = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts.not_in_server_count).toBe(0);
  });

  it('are looked up as "listed, not in the server", never as holding the role', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const [absent, holder] = userIds(2, 320000000000000000n);
    await listed(link.linkId, [absent!, holder!], (u) => (u === absent ? 'not_in_guild' : 'applied'));
    await db.pool.query('UPDATE role_link SET user_count = 2 WHERE id = $1', [link.linkId]);
    const deps = testAdminDeps(db);
    const out = await lookupMember(deps, { guildId: link.guildId, roleId: link.roleId, userId: absent! });
    expect(out).toMatchObject({ state: 'synced', reason: 'not_in_server', platform: { outcome: 'not_in_guild' } });
    const holds = await lookupMember(deps, { guildId: link.guildId, roleId: link.roleId, userId: holder! });
    expect(holds).toMatchObject({ state: 'synced', reason: 'synced', should_hold: true });
  });
});
