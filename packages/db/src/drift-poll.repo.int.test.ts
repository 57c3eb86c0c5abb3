import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, userIds } from '../../../test/support/fixtures';
import { fromStored, toStored } from './user-id';
import { claimDueDriftGuilds, countDriftGuilds, finishDriftPoll, markHandRemovedUsers, releaseDriftGuild, syncDriftGuilds } from './drift-poll.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());
beforeEach(() => db.pool.query('TRUNCATE drift_poll'));

const G = ['910000000000000001', '910000000000000002', '910000000000000003'];
const rows = async () =>
  (await db.pool.query<{ guild_id: string; last_entry_id: string | null; status: string; repaired: string }>('SELECT guild_id::text, last_entry_id::text, status, repaired::text FROM drift_poll ORDER BY guild_id')).rows;

describe('drift poll repository (drift_poll, per-user repairs)', () => {
  it('keeps one row per guild with active links, new guilds due at once, dropped guilds forgotten with their place', async () => {
    await syncDriftGuilds(db.pool, [G[0]!, G[1]!]);
    await finishDriftPoll(db.pool, G[0]!, { lastEntryId: '1234567890123456789', status: 'ok', repaired: 2, nextInMs: 60_000 });
    await syncDriftGuilds(db.pool, [G[0]!, G[2]!]);
    expect(await rows()).toEqual([
      { guild_id: G[0], last_entry_id: '1234567890123456789', status: 'ok', repaired: '2' },
      { guild_id: G[2], last_entry_id: null, status: 'ok', repaired: '0' },
    ]);
  });

  it('claims due guilds most overdue first, at most `limit`, and not again while the lease runs', async () => {
    await syncDriftGuilds(db.pool, G);
    await db.pool.query(`UPDATE drift_poll SET next_poll_at = localtimestamp - make_interval(secs => (4 - right(guild_id::text, 1)::int) * 10)`); // G[0] most overdue
    const first = await claimDueDriftGuilds(db.pool, 2, 60_000);
    expect(first.map((g) => g.guildId)).toEqual([G[0], G[1]]);
    expect(first[0]).toEqual({ guildId: G[0], lastEntryId: null, status: 'ok' });
    expect((await claimDueDriftGuilds(db.pool, 5, 60_000)).map((g) => g.guildId)).toEqual([G[2]]);
    expect(await claimDueDriftGuilds(db.pool, 5, 60_000)).toEqual([]);

    // Given back unread (no budget): due at once. Finished with more to read (nextInMs 0): due at once.
    await releaseDriftGuild(db.pool, G[1]!);
    await finishDriftPoll(db.pool, G[2]!, { lastEntryId: '77', status: 'ok', repaired: 0, nextInMs: 0 });
    await finishDriftPoll(db.pool, G[0]!, { lastEntryId: null, status: 'no_permission', repaired: 0, nextInMs: 3_600_000 });
    expect((await claimDueDriftGuilds(db.pool, 5, 60_000)).map((g) => g.guildId).sort()).toEqual([G[1], G[2]]);
    expect(await countDriftGuilds(db.pool)).toEqual({ ok: 2, no_permission: 1 });
  });

  it("marks only the named users' applied records removed, leaving records newer than the read alone", async () => {
    const { linkId } = await seedLink(db);
    const [handRemoved, newer, other, notApplied] = userIds(4, 920000000000000000n);
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, updated_at, granted) VALUES
         ($1, ${toStored('$2')}, 'applied', localtimestamp - interval '1 minute', true), ($1, ${toStored('$3')}, 'applied', localtimestamp + interval '1 minute', true),
         ($1, ${toStored('$4')}, 'applied', localtimestamp - interval '1 minute', true), ($1, ${toStored('$5')}, 'not_in_guild', localtimestamp - interval '1 minute', false)`,
      [linkId, handRemoved, newer, other, notApplied],
    );
    const seenAt = (await db.pool.query<{ t: Date }>('SELECT localtimestamp AS t')).rows[0]!.t;
    expect(await markHandRemovedUsers(db.pool, linkId, [handRemoved!, newer!, notApplied!], seenAt)).toEqual([handRemoved]);
    const { rows: after } = await db.pool.query<{ user_id: string; outcome: string; granted: boolean }>(`SELECT ${fromStored('user_id')} AS user_id, outcome, granted FROM applied_member WHERE link_id = $1 ORDER BY user_id`, [linkId]);
    expect(after.map((r) => [r.user_id, r.outcome, r.granted])).toEqual([
      [handRemoved, 'removed', false],
      [newer, 'applied', true],
      [other, 'applied', true],
      [notApplied, 'not_in_guild', false],
    ]);
  });
});
