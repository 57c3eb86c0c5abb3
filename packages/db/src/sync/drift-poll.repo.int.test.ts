import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { fromStored, toStored } from '../client/user-id';
import {
  claimDueDriftGuilds,
  countDriftGuilds,
  DRIFT_PRIORITY,
  finishDriftPoll,
  isQuietTurn,
  markHandRemovedUsers,
  noteLinkChanged,
  readDriftCoverage,
  releaseDriftGuild,
  syncDriftGuilds,
} from './drift-poll.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());
beforeEach(() => db.pool.query('TRUNCATE drift_poll'));

const G = ['910000000000000001', '910000000000000002', '910000000000000003'];
const rows = async () =>
  (
    await db.pool.query<{ guild_id: string; last_entry_id: string | null; status: string; repaired: string }>(
      'SELECT guild_id::text, last_entry_id::text, status, repaired::text FROM drift_poll ORDER BY guild_id',
    )
  ).rows;

describe('drift poll repository (drift_poll, per-user repairs)', () => {
  it('keeps one row per guild with active links, new guilds due at once, dropped guilds forgotten with their place', async () => {
    await syncDriftGuilds(db.pool, [G[0]!, G[1]!]);
    await finishDriftPoll(db.pool, G[0]!, {
      lastEntryId: '1234567890123456789',
      status: 'ok',
      repaired: 2,
      nextInMs: 60_000,
    });
    await syncDriftGuilds(db.pool, [G[0]!, G[2]!]);
    expect(await rows()).toEqual([
      { guild_id: G[0], last_entry_id: '1234567890123456789', status: 'ok', repaired: '2' },
      { guild_id: G[2], last_entry_id: null, status: 'ok', repaired: '0' },
    ]);
  });

  it('claims due guilds the longest unread first, at most `limit`, and not again while the lease runs', async () => {
    await syncDriftGuilds(db.pool, G);
    await db.pool.query(
      `UPDATE drift_poll SET polled_at = localtimestamp - make_interval(secs => (4 - right(guild_id::text, 1)::int) * 10)`,
    ); // G[0] unread longest
    const first = await claimDueDriftGuilds(db.pool, 2, 60_000);
    expect(first.map((g) => g.guildId)).toEqual([G[0], G[1]]);
    expect(first[0]).toEqual({ guildId: G[0], lastEntryId: null, status: 'ok', changed: false });
    expect((await claimDueDriftGuilds(db.pool, 5, 60_000)).map((g) => g.guildId)).toEqual([G[2]]);
    expect(await claimDueDriftGuilds(db.pool, 5, 60_000)).toEqual([]);

    // Given back unread (no budget): due at once. Finished with more to read (nextInMs 0): due at once.
    await releaseDriftGuild(db.pool, G[1]!);
    await finishDriftPoll(db.pool, G[2]!, { lastEntryId: '77', status: 'ok', repaired: 0, nextInMs: 0 });
    await finishDriftPoll(db.pool, G[0]!, {
      lastEntryId: null,
      status: 'no_permission',
      repaired: 0,
      nextInMs: 3_600_000,
    });
    expect((await claimDueDriftGuilds(db.pool, 5, 60_000)).map((g) => g.guildId).sort()).toEqual([G[1], G[2]]);
    expect(await countDriftGuilds(db.pool)).toEqual({ ok: 2, no_permission: 1 });
  });

  it('takes a guild new, given back, or finished with more to read as due at once, though the column rounds the time up', async () => {
    await syncDriftGuilds(db.pool, [G[1]!, G[2]!]);
    for (const g of [G[1]!, G[2]!])
      await finishDriftPoll(db.pool, g, { lastEntryId: '7', status: 'ok', repaired: 0, nextInMs: 60_000 });
    await inLateHalfMillisecond(db.pool, async (c) => {
      await syncDriftGuilds(c, G);
      await releaseDriftGuild(c, G[1]!);
      await finishDriftPoll(c, G[2]!, { lastEntryId: '77', status: 'ok', repaired: 0, nextInMs: 0 });
      expect((await claimDueDriftGuilds(c, 5, 60_000)).map((g) => g.guildId).sort()).toEqual(G);
    });
  });

  // Ten guilds: 0-4 quiet, unread longest; 5-9 read just now, three of them changed.
  const TEN = Array.from({ length: 10 }, (_, i) => `93000000000000000${i}`);
  async function tenGuilds(): Promise<void> {
    await syncDriftGuilds(db.pool, TEN);
    await db.pool.query(
      `UPDATE drift_poll SET polled_at = localtimestamp - make_interval(secs => (10 - right(guild_id::text, 1)::int) * 60)`,
    );
    await noteLinkChanged(db.pool, TEN[7]!);
    await finishDriftPoll(db.pool, TEN[9]!, {
      lastEntryId: '5',
      status: 'ok',
      repaired: 1,
      nextInMs: 0,
      handEdit: true,
    });
    await db.pool.query(
      `UPDATE drift_poll SET link_changed_at = localtimestamp - interval '2 hours' WHERE guild_id = $1`,
      [TEN[8]],
    ); // changed, but too long ago
    await db.pool.query(
      `UPDATE drift_poll SET link_changed_at = localtimestamp - interval '5 minutes' WHERE guild_id = $1`,
      [TEN[6]],
    );
  }

  it('reads changed guilds (a linked role changed or a hand edit seen within the hour) ahead of quiet ones, quiet ones taking the turns they leave', async () => {
    await tenGuilds();
    const order = await claimDueDriftGuilds(db.pool, 10, 60_000);
    // Changed: 6, 7, 9 (9 was read last); quiet, the longest unread first: 0 1 2 3 4 5 8 (8 changed two
    // hours ago). Turns 0-3 are changed guilds', 4 a quiet one's: three changed, then quiet ones fill in.
    expect(order.map((g) => [g.guildId.slice(-1), g.changed])).toEqual([
      ['6', true],
      ['7', true],
      ['9', true],
      ['0', false],
      ['1', false],
      ['2', false],
      ['3', false],
      ['4', false],
      ['5', false],
      ['8', false],
    ]);
  });

  it('gives quiet guilds every fifth turn however many guilds changed, counted across claims (no starvation)', async () => {
    expect(Array.from({ length: 10 }, (_, n) => isQuietTurn(n, 0.8))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
    const many = Array.from({ length: 20 }, (_, i) => `94000000000000${String(i).padStart(4, '0')}`);
    await syncDriftGuilds(db.pool, many);
    for (const g of many.slice(0, 16)) await noteLinkChanged(db.pool, g); // 16 changed, 4 quiet
    const claims = await claimDueDriftGuilds(db.pool, 10, 60_000);
    expect(claims.map((g) => g.changed)).toEqual([true, true, true, true, false, true, true, true, true, false]);
    // One read a tick (a small budget): the turn count carried from tick to tick still gives quiet guilds theirs.
    const oneByOne = [];
    for (let turn = 10; turn < 20; turn++)
      oneByOne.push(...(await claimDueDriftGuilds(db.pool, 1, 60_000, { ...DRIFT_PRIORITY, firstTurn: turn })));
    expect(oneByOne.map((g) => g.changed)).toEqual([true, true, true, true, false, true, true, true, true, false]);
    expect(new Set([...claims, ...oneByOne].filter((g) => !g.changed).map((g) => g.guildId))).toEqual(
      new Set(many.slice(16)),
    );
  });

  it('never gives one guild to two claims at once (several workers)', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `95000000000000${String(i).padStart(4, '0')}`);
    await syncDriftGuilds(db.pool, many);
    for (const g of many.slice(0, 20)) await noteLinkChanged(db.pool, g);
    const claims = await Promise.all(Array.from({ length: 6 }, () => claimDueDriftGuilds(db.pool, 15, 60_000)));
    const all = claims.flat().map((g) => g.guildId);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThanOrEqual(many.length);
  });

  it('reports coverage: the least recently read guild and the share read within two minutes, over all and over changed guilds', async () => {
    expect(await readDriftCoverage(db.pool)).toEqual({
      all: { guilds: 0, oldestAgeSeconds: 0, shareWithin: 1 },
      changed: { guilds: 0, oldestAgeSeconds: 0, shareWithin: 1 },
    });
    await tenGuilds();
    await finishDriftPoll(db.pool, TEN[0]!, {
      lastEntryId: null,
      status: 'no_permission',
      repaired: 0,
      nextInMs: 3_600_000,
    }); // left out
    const c = await readDriftCoverage(db.pool);
    // Guild i was read 10 − i minutes ago, guild 9 just now: guild 1 is the oldest the poll may read, and
    // only guild 9 was read within two minutes (guild 8's two minutes have passed by the time of this read).
    expect(c.all.guilds).toBe(9);
    expect(c.all.oldestAgeSeconds).toBeCloseTo(540, 0);
    expect(c.all.shareWithin).toBeCloseTo(1 / 9, 5);
    expect(c.changed.guilds).toBe(3);
    expect(c.changed.oldestAgeSeconds).toBeCloseTo(240, 0); // guild 6, read four minutes ago
    expect(c.changed.shareWithin).toBeCloseTo(1 / 3, 5);
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
    expect(await markHandRemovedUsers(db.pool, linkId, [handRemoved!, newer!, notApplied!], seenAt)).toEqual([
      handRemoved,
    ]);
    const { rows: after } = await db.pool.query<{ user_id: string; outcome: string; granted: boolean }>(
      `SELECT ${fromStored('user_id')} AS user_id, outcome, granted FROM applied_member WHERE link_id = $1 ORDER BY user_id`,
      [linkId],
    );
    expect(after.map((r) => [r.user_id, r.outcome, r.granted])).toEqual([
      [handRemoved, 'removed', false],
      [newer, 'applied', true],
      [other, 'applied', true],
      [notApplied, 'not_in_guild', false],
    ]);
  });
});
