// Listed users no role call can reach: those not in the server are shown as "listed,
// not in the server", never as holding the role; they and deleted accounts are counted apart so progress
// reaches "up to date"; and while the bot cannot list members, the not-in-server count is unavailable with
// the reason, never a smaller number. The rows are what the bot worker writes: applied_member outcome
// `not_in_guild` for an add answered Unknown Member (10007), `unknown_user` for Unknown User (10013), a
// finished pass's counts (applied = holders seen, pending = listed − applied), and the reconcile's
// bot_application mark after a 403 50001 on the member listing.
import { holdAdminRemoval } from '@rolelink/db/list';
import { markMembersListingBlocked } from '@rolelink/db/sync';
import { MEMBERS_INTENT_SETTING } from '@rolelink/domain';
import { toStored } from '@rolelink/db/client';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, userIds } from '../../../test/support/fixtures';
import { showLink } from './link-show';
import { lookupMember } from './member-lookup';
import { testAdminDeps } from '../test/support/deps';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function listed(linkId: string, users: string[], outcome: (u: string) => string): Promise<void> {
  await db.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('u')} FROM unnest($2::numeric[]) u`,
    [linkId, users],
  );
  for (const u of users)
    await db.pool.query(`INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, $3)`, [
      linkId,
      u,
      outcome(u),
    ]);
}

describe('listed users no call can reach', () => {
  it('not in the server are counted apart from synced and pending, so a finished sync is up to date with them named', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const users = userIds(10, 300000000000000000n);
    const absent = new Set(users.slice(7));
    await listed(link.linkId, users, (u) => (absent.has(u) ? 'not_in_guild' : 'applied'));
    // What finishPass writes: 7 holders seen, 10 listed, so 3 "pending" by the worker's measure.
    await db.pool.query(
      'UPDATE role_link SET user_count = 10, applied_count = 7, pending_count = 3, sync_done_seq = sync_wanted_seq WHERE id = $1',
      [link.linkId],
    );
    const view = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts).toEqual({
      listed: 10,
      synced: 7,
      to_add: 0,
      to_remove: 0,
      held: 0,
      over_limit: 0,
      not_in_server: 3,
      deleted: 0,
    });
    expect(view).toMatchObject({ state: 'up_to_date', progress: { percent: 100, eta_seconds: null } });
    expect(view.listing_unavailable).toBeNull();
  });

  it('count deleted accounts apart too: permanent, never pending (10013)', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const users = userIds(10, 305000000000000000n);
    const outcome = (u: string) =>
      u === users[0] || u === users[1] ? 'unknown_user' : u === users[2] ? 'not_in_guild' : 'applied';
    await listed(link.linkId, users, outcome);
    // 6 holders; the worker counts the 4 others as pending: 3 no call can reach, 1 add still to make.
    await db.pool.query(
      'UPDATE role_link SET user_count = 10, applied_count = 6, pending_count = 4, sync_done_seq = sync_wanted_seq WHERE id = $1',
      [link.linkId],
    );
    await db.pool.query(`DELETE FROM applied_member WHERE link_id = $1 AND user_id = ${toStored('$2')}`, [
      link.linkId,
      users[9],
    ]);
    const view = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts).toEqual({
      listed: 10,
      synced: 6,
      to_add: 1,
      to_remove: 0,
      held: 0,
      over_limit: 0,
      not_in_server: 1,
      deleted: 2,
    });
    // The add made: up to date, with the two deleted accounts still named.
    await db.pool.query('UPDATE role_link SET applied_count = 7, pending_count = 3 WHERE id = $1', [link.linkId]);
    const done = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(done.counts).toMatchObject({ synced: 7, to_add: 0, to_remove: 0, deleted: 2 });
    expect(done).toMatchObject({ state: 'up_to_date', progress: { percent: 100, eta_seconds: null } });
  });

  it('while the bot cannot list members: the not-in-server count is null with the reason naming the portal setting', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const users = userIds(4, 307000000000000000n);
    await listed(link.linkId, users, (u) =>
      u === users[0] ? 'not_in_guild' : u === users[1] ? 'unknown_user' : 'applied',
    );
    await db.pool.query(
      'UPDATE role_link SET user_count = 4, applied_count = 2, pending_count = 2, sync_done_seq = sync_wanted_seq WHERE id = $1',
      [link.linkId],
    );
    const deps = { ...testAdminDeps(db), appKey: 'app-listing-test' };
    expect((await showLink(deps, { guildId: link.guildId, roleId: link.roleId })).counts.not_in_server).toBe(1);
    await markMembersListingBlocked(db.pool, 'app-listing-test');
    const view = await showLink(deps, { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts).toEqual({
      listed: 4,
      synced: 2,
      to_add: 0,
      to_remove: 0,
      held: 0,
      over_limit: 0,
      not_in_server: null,
      deleted: 1,
    });
    expect(view.listing_unavailable?.reason).toBe('members_intent');
    expect(view.listing_unavailable?.message).toContain(MEMBERS_INTENT_SETTING);
    // Another application's mark is not this one's.
    expect(
      (await showLink({ ...deps, appKey: 'another-app' }, { guildId: link.guildId, roleId: link.roleId }))
        .listing_unavailable,
    ).toBeNull();
  });

  it('stop counting once the plugin no longer lists them (either kind)', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const [gone] = userIds(1, 310000000000000000n);
    const [gone2] = userIds(1, 311000000000000000n);
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'not_in_guild')`,
      [link.linkId, gone],
    );
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'unknown_user')`,
      [link.linkId, gone2],
    );
    const view = await showLink(testAdminDeps(db), { guildId: link.guildId, roleId: link.roleId });
    expect(view.counts).toMatchObject({ not_in_server: 0, deleted: 0 });
  });

  it('not in the server are looked up as "listed, not in the server", never as holding the role', async () => {
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

  it('a deleted account is looked up as deleted, and a member held for safety says so and why', async () => {
    const link = await seedLink(db, { plan: 'premium', firstList: true });
    const [gone, admin] = userIds(2, 330000000000000000n);
    await listed(link.linkId, [gone!], () => 'unknown_user');
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'applied')`,
      [link.linkId, admin],
    );
    await db.pool.query('UPDATE role_link SET user_count = 1 WHERE id = $1', [link.linkId]);
    await holdAdminRemoval(db.pool, link.linkId, admin!);
    const deps = testAdminDeps(db);
    const deleted = await lookupMember(deps, { guildId: link.guildId, roleId: link.roleId, userId: gone! });
    expect(deleted).toMatchObject({
      reason: 'account_deleted',
      should_hold: false,
      platform: { outcome: 'unknown_user', text: 'Account deleted' },
    });
    expect(deleted.message).toMatch(/^Account deleted/);
    const held = await lookupMember(deps, { guildId: link.guildId, roleId: link.roleId, userId: admin! });
    expect(held).toMatchObject({ state: 'not_listed', reason: 'held_for_safety', should_hold: true });
    expect(held.message).toMatch(/only source of Administrator or Manage Server/);
    // The card counts the same facts: one deleted account, one removal held.
    const view = await showLink(deps, { guildId: link.guildId, roleId: link.roleId });
    expect(view).toMatchObject({ state: 'held', reason: 'admin_source', counts: { deleted: 1, held: 1 } });
  });
});
