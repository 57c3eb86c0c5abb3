import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import { blockLink, countBlockedLinks, findLinkBlock, unblockLink } from './link-blocks.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());
beforeEach(() => db.pool.query('TRUNCATE guild, role_link, link_sync_state CASCADE'));

describe('link blocks (link_sync_state.blocked_reason)', () => {
  it('records why a link is blocked once, updates the reason without a second announcement, and ends it', async () => {
    const link = await seedLink(db);
    expect(await findLinkBlock(db.pool, link.linkId)).toBeNull();
    expect(await blockLink(db.pool, link.linkId, 'above_bot')).toBe(true);
    expect(await blockLink(db.pool, link.linkId, 'no_manage_roles')).toBe(false);
    expect(await findLinkBlock(db.pool, link.linkId)).toMatchObject({
      reason: 'no_manage_roles',
      since: expect.any(Date),
    });
    expect(await countBlockedLinks(db.pool)).toEqual([{ reason: 'no_manage_roles', count: 1 }]);
    expect(await unblockLink(db.pool, link.linkId)).toMatchObject({ reason: 'no_manage_roles' });
    expect(await unblockLink(db.pool, link.linkId)).toBeNull();
    expect(await findLinkBlock(db.pool, link.linkId)).toBeNull();
    expect(await blockLink(db.pool, link.linkId, 'mfa_required')).toBe(true); // a new block is announced again
  });
});
