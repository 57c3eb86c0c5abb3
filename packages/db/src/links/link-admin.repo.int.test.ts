import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedGuild, seedLink, snowflake, userIds } from '../../../../test/support/fixtures';
import { inTransaction } from '../client/queryable';
import {
  deleteLinkAt,
  findLinkPlugin,
  guildLinkRoles,
  insertLink,
  linkedGuildIds,
  linkDetails,
  linkExistsForRole,
  recordHolderPage,
  removeLinkRows,
  updateLinkFlags,
} from './link-admin.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const newLink = (guildId: string, roleId: string, keep = false) =>
  insertLink(db.pool, {
    guildId,
    roleId,
    tokenHash: Buffer.from(snowflake()),
    tokenCiphertext: Buffer.from('ciphertext'),
    pluginUrl: 'https://plugin.example.com',
    memberMode: keep ? 'keep' : 'handover',
    firstListAt: keep ? new Date() : null,
  });

async function countsOf(linkId: string) {
  const { rows } = await db.pool.query<{ user_count: number; applied_count: number; listed: number; applied: number }>(
    `SELECT user_count, applied_count, (SELECT count(*)::int FROM link_user WHERE link_id = $1) AS listed,
            (SELECT count(*)::int FROM applied_member WHERE link_id = $1) AS applied
       FROM role_link WHERE id = $1`,
    [linkId],
  );
  return rows[0];
}

describe('link-admin repository (role_link as the admin writes it)', () => {
  it('inserts a link once per role; a second one is a unique violation', async () => {
    const guildId = await seedGuild(db);
    const roleId = snowflake();
    expect(await linkExistsForRole(db.pool, guildId, roleId)).toBe(false);
    const id = await newLink(guildId, roleId);
    expect(id).toMatch(/^\d+$/);
    expect(await linkExistsForRole(db.pool, guildId, roleId)).toBe(true);
    await expect(newLink(guildId, roleId)).rejects.toMatchObject({ code: '23505' });
    expect(await findLinkPlugin(db.pool, guildId, roleId)).toEqual({ id, pluginUrl: 'https://plugin.example.com' });
    expect(await findLinkPlugin(db.pool, guildId, snowflake())).toBeNull();
  });

  it("records the role's holders: the applied record and the holder count always, the list in keep mode", async () => {
    const guildId = await seedGuild(db);
    const handover = await newLink(guildId, snowflake());
    const keep = await newLink(guildId, snowflake(), true);
    const ids = userIds(3, 340000000000000000n);
    await inTransaction(db.pool, (c) => recordHolderPage(c, handover, ids, false));
    await inTransaction(db.pool, (c) => recordHolderPage(c, keep, ids, true));
    await inTransaction(db.pool, (c) => recordHolderPage(c, keep, ids.slice(0, 1), true)); // a repeated page changes nothing
    expect(await countsOf(handover)).toEqual({ user_count: 0, applied_count: 3, listed: 0, applied: 3 });
    expect(await countsOf(keep)).toEqual({ user_count: 3, applied_count: 3, listed: 3, applied: 3 });

    await inTransaction(db.pool, (c) => removeLinkRows(c, keep));
    expect(await countsOf(keep)).toBeUndefined();
    const { rows } = await db.pool.query(
      'SELECT 1 FROM applied_member WHERE link_id = $1 UNION ALL SELECT 1 FROM link_user WHERE link_id = $1',
      [keep],
    );
    expect(rows).toHaveLength(0);
  });

  it('sets the flags it is given, leaves the others, and tells which changed', async () => {
    const { linkId, guildId, roleId } = await seedLink(db);
    expect(await updateLinkFlags(db.pool, guildId, roleId, { enabled: false, trusted: null })).toEqual({
      id: linkId,
      enabledChanged: true,
      trustedChanged: false,
    });
    expect(await updateLinkFlags(db.pool, guildId, roleId, { enabled: null, trusted: true })).toEqual({
      id: linkId,
      enabledChanged: false,
      trustedChanged: true,
    });
    // Setting a flag to the value it has is not a change.
    expect(await updateLinkFlags(db.pool, guildId, roleId, { enabled: false, trusted: true })).toEqual({
      id: linkId,
      enabledChanged: false,
      trustedChanged: false,
    });
    const { rows } = await db.pool.query('SELECT enabled, trusted FROM role_link WHERE id = $1', [linkId]);
    expect(rows[0]).toEqual({ enabled: false, trusted: true });
    expect(await updateLinkFlags(db.pool, guildId, snowflake(), { enabled: true, trusted: null })).toBeNull();
  });

  it("shows a link's details and lists a guild's links oldest first", async () => {
    const first = await seedLink(db);
    const second = await seedLink(db, { guildId: first.guildId });
    expect(await linkDetails(db.pool, first.linkId)).toMatchObject({
      plugin_url: 'https://plugin.example.com',
      sync_rate_per_sec: null,
      last_sync_at: null,
    });
    expect(await linkDetails(db.pool, '999999999')).toBeNull();
    expect(await guildLinkRoles(db.pool, first.guildId)).toEqual([
      { roleId: first.roleId, pluginUrl: 'https://plugin.example.com' },
      { roleId: second.roleId, pluginUrl: 'https://plugin.example.com' },
    ]);
    expect(await linkedGuildIds(db.pool)).toContain(first.guildId);
  });

  it("deletes the link of a role, returning what the plugin's config delete needs", async () => {
    const { linkId, guildId, roleId } = await seedLink(db);
    const removed = await deleteLinkAt(db.pool, guildId, roleId);
    expect(removed).toMatchObject({ id: linkId, plugin_url: 'https://plugin.example.com' });
    expect(Buffer.isBuffer(removed!.token_ciphertext)).toBe(true);
    expect(await deleteLinkAt(db.pool, guildId, roleId)).toBeNull();
  });
});
