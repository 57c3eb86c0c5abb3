import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { toStored } from '../client/user-id';
import { recordHeldChange } from '../list/held-changes.repo';
import { findLinkById } from '../links/links.repo';
import { markMembersListingBlocked } from './bot-application.repo';
import { openGuildOutage } from './guild-outage.repo';
import { blockLink } from './link-blocks.repo';
import { linkStateFacts } from './link-state-facts.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function factsOf(linkId: string, appKey: string | null) {
  const link = await findLinkById(db.pool, linkId);
  return linkStateFacts(db.pool, link!, appKey);
}

describe('link-state-facts repository (what a link state is derived from, in one round trip)', () => {
  it('a quiet link: no outage, block, unreachable users or hold, member listing available', async () => {
    const { linkId } = await seedLink(db);
    expect(await factsOf(linkId, null)).toMatchObject({
      botNotInGuild: false,
      outageSince: null,
      block: null,
      blockSince: null,
      notInServer: 0,
      deleted: 0,
      hold: null,
      membersIntentMissing: false,
    });
  });

  it("reads the guild's outage, the link's block, unreachable listed users, the unspent hold and the app's refused listing", async () => {
    const { linkId, guildId } = await seedLink(db);
    const u = userIds(2, 380000000000000000n);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [linkId, u],
    );
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'not_in_guild'), ($1, ${toStored('$3')}, 'unknown_user')`,
      [linkId, u[0], u[1]],
    );
    await openGuildOutage(db.pool, guildId, 50001);
    await blockLink(db.pool, linkId, 'above_bot');
    await recordHeldChange(db.pool, linkId, { previous: 10, next: 2, removals: 8, removalSample: [] });
    await markMembersListingBlocked(db.pool, 'app-facts');

    const facts = await factsOf(linkId, 'app-facts');
    expect(facts).toMatchObject({
      botNotInGuild: true,
      outageSince: expect.any(Date),
      block: 'above_bot',
      blockSince: expect.any(Date),
      notInServer: 1,
      deleted: 1,
      hold: { kind: 'shrink', removals: 8, confirmed: false, replaced: false },
      membersIntentMissing: true,
    });
    // Another application's key: that app's member listing is not refused.
    expect((await factsOf(linkId, 'another-app')).membersIntentMissing).toBe(false);
  });
});
