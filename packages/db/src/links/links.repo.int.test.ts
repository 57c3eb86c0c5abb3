import { hashToken } from '@rolelink/domain';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedGuild, seedLink, userIds } from '../../../../test/support/fixtures';
import { recordOutcome } from '../sync/applied-outcomes.repo';
import {
  findLinkAt,
  findLinkByTokenHash,
  findPluginLink,
  findPluginLinkByRole,
  findPluginUrl,
  lockLink,
} from './links.repo';
import { addUsers } from '../list/list-single.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const PLUGIN = 'https://plugin.example.com';

describe('links repository (role_link read on the request path)', () => {
  it("finds a link by its token's hash or its role, with its guild's plan, counts and slot rank", async () => {
    const guildId = await seedGuild(db, { plan: 'premium', paidSlots: 2 });
    const older = await seedLink(db, { guildId });
    const link = await seedLink(db, { guildId, trusted: true, memberMode: 'keep' });
    const ids = userIds(3, 1310000000000000000n);
    await addUsers(db.pool, link.linkId, ids, 100);
    await recordOutcome.added(db.pool, link.linkId, ids[0]!);
    await db.pool.query('UPDATE role_link SET applied_count = 1, pending_count = 2 WHERE id = $1', [link.linkId]);

    const found = await findLinkByTokenHash(db.pool, hashToken(link.token));
    expect(found).toMatchObject({
      id: link.linkId,
      guildId,
      roleId: link.roleId,
      enabled: true,
      trusted: true,
      memberMode: 'keep',
      userCount: 3,
      appliedCount: 1,
      pendingCount: 2,
      syncBehind: true,
      plan: 'premium',
      paidSlots: 2,
      rank: 1,
    });
    expect(found!.firstListAt).toBeInstanceOf(Date);
    expect(await findLinkAt(db.pool, guildId, link.roleId)).toEqual(found);
    expect((await findLinkAt(db.pool, guildId, older.roleId))!).toMatchObject({
      rank: 0,
      userCount: 0,
      syncBehind: false,
    });
    expect(await findLinkByTokenHash(db.pool, hashToken(`${link.token}x`))).toBeNull();
    expect(await findLinkAt(db.pool, guildId, '1')).toBeNull();
  });

  it("locks a link's row for the caller's transaction: a second writer waits for it", async () => {
    const { linkId } = await seedLink(db, { firstList: false });
    expect(await lockLink(db.pool, '999999999')).toBeNull();
    const a = await db.pool.connect();
    const b = await db.pool.connect();
    try {
      await a.query('BEGIN');
      expect(await lockLink(a, linkId)).toMatchObject({ userCount: 0, firstListAt: null, trusted: false });
      await b.query('BEGIN');
      await b.query(`SET LOCAL lock_timeout = '50ms'`);
      await expect(lockLink(b, linkId)).rejects.toMatchObject({ code: '55P03' }); // lock_not_available
      await b.query('ROLLBACK');
      await a.query('COMMIT');
      await b.query('BEGIN');
      expect(await lockLink(b, linkId)).toMatchObject({ userCount: 0 });
      await b.query('COMMIT');
    } finally {
      a.release();
      b.release();
    }
  });

  it("reads what the broker needs: a link's ids, plugin and token ciphertext, or null when it is gone", async () => {
    const { linkId, guildId, roleId } = await seedLink(db);
    const link = await findPluginLink(db.pool, linkId);
    expect(link).toMatchObject({ id: linkId, guildId, roleId, pluginUrl: PLUGIN });
    expect(Buffer.isBuffer(link!.tokenCiphertext) && link!.tokenCiphertext.length > 0).toBe(true);
    expect(await findPluginUrl(db.pool, linkId)).toBe(PLUGIN);
    expect(await findPluginLink(db.pool, '999999999')).toBeNull();
    expect(await findPluginLinkByRole(db.pool, guildId, roleId)).toEqual(link);
    expect(await findPluginLinkByRole(db.pool, guildId, '999999999')).toBeNull();
    expect(await findPluginUrl(db.pool, '999999999')).toBeNull();
  });
});
