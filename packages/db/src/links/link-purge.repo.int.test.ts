import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { recordOutcome } from '../sync/applied-outcomes.repo';
import { grantedCount } from '../sync/applied-members.repo';
import { deleteLinkAt } from './link-admin.repo';
import { finishStrip, pendingStrip, purgeDeletedLinks, recordPurge } from './link-purge.repo';
import { addUsers, hasUser } from '../list/list-single.repo';
import { recordMemberChange } from '../sync/member-changes.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

/** A link with list, journal, applied and history rows, then deleted the way link-delete does it. */
async function deletedLink(
  stripRoles: boolean,
  users: string[],
): Promise<{ linkId: string; guildId: string; roleId: string }> {
  const link = await seedLink(db);
  await addUsers(db.pool, link.linkId, users, 100);
  for (const u of users) await recordOutcome.added(db.pool, link.linkId, u);
  await recordMemberChange(db.pool, {
    linkId: link.linkId,
    userId: users[0]!,
    action: 'add',
    outcome: 'applied',
    cause: 'journal',
  });
  await deleteLinkAt(db.pool, link.guildId, link.roleId);
  await recordPurge(db.pool, { ...link, stripRoles });
  return link;
}

async function rowsOf(linkId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM link_user WHERE link_id = $1) + (SELECT count(*) FROM applied_member WHERE link_id = $1)
           + (SELECT count(*) FROM list_change WHERE link_id = $1) + (SELECT count(*) FROM member_change WHERE link_id = $1))::int AS n`,
    [linkId],
  );
  return rows[0]!.n;
}

describe('link-purge repository (link_purge)', () => {
  it("purges a deleted link's rows, a bounded number per sweep, and forgets the link once done", async () => {
    const users = userIds(3, 960000000000000000n);
    const { linkId } = await deletedLink(false, users);
    const total = await rowsOf(linkId);
    expect(total).toBe(3 + 3 + 3 + 1);
    expect(await purgeDeletedLinks(db.pool, 1)).toBe(3); // the first table's batch, then the bound stops it
    expect(await rowsOf(linkId)).toBe(total - 3);
    expect(await purgeDeletedLinks(db.pool)).toBe(total - 3);
    expect(await rowsOf(linkId)).toBe(0);
    expect(await hasUser(db.pool, linkId, users[0]!)).toBe(false);
    expect(await purgeDeletedLinks(db.pool)).toBe(0);
  });

  it('keeps a link whose roles are to be stripped until the strip is done', async () => {
    const users = userIds(2, 970000000000000000n);
    const { linkId, guildId, roleId } = await deletedLink(true, users);
    expect(await pendingStrip(db.pool, linkId)).toEqual({ guildId, roleId });
    expect(await purgeDeletedLinks(db.pool)).toBe(0);
    expect(await grantedCount(db.pool, linkId)).toBe(2);
    await finishStrip(db.pool, linkId);
    expect(await pendingStrip(db.pool, linkId)).toBeNull();
    expect(await purgeDeletedLinks(db.pool)).toBe(2 + 2 + 2 + 1);
    expect(await rowsOf(linkId)).toBe(0);
  });

  it('records a purge once and has nothing to strip for a link deleted without stripping', async () => {
    const { linkId, guildId, roleId } = await deletedLink(false, userIds(1, 980000000000000000n));
    await recordPurge(db.pool, { linkId, guildId, roleId, stripRoles: true }); // a repeated delete changes nothing
    expect(await pendingStrip(db.pool, linkId)).toBeNull();
    expect(await pendingStrip(db.pool, '999999999')).toBeNull();
  });
});
