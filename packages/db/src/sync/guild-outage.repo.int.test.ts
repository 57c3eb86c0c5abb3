import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink } from '../../../../test/support/fixtures';
import {
  claimGuildProbe,
  closeGuildOutage,
  countGuildOutages,
  findGuildOutage,
  GUILD_PROBES,
  markOutageAnnounced,
  openGuildOutage,
  probeFailed,
  releaseGuildProbe,
} from './guild-outage.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());
beforeEach(() => db.pool.query('TRUNCATE guild_outage, guild, role_link CASCADE'));

const dueNow = (guildId: string) =>
  db.pool.query('UPDATE guild_outage SET next_probe_at = localtimestamp WHERE guild_id = $1', [guildId]);

describe('guild outage repository (guild_outage)', () => {
  it('opens an outage once, with its first probe a minute away, and closes it when the bot is back', async () => {
    const link = await seedLink(db);
    const first = await openGuildOutage(db.pool, link.guildId, 10004);
    expect(first.opened).toBe(true);
    expect(first.outage).toMatchObject({ guildId: link.guildId, code: 10004, probes: 0, notified: false });
    const wait = first.outage.nextProbeAt!.getTime() - first.outage.since.getTime();
    expect(wait).toBeGreaterThanOrEqual(59_000);
    expect(wait).toBeLessThanOrEqual(61_000);
    expect((await openGuildOutage(db.pool, link.guildId, 50001)).opened).toBe(false); // a second link meeting it
    expect(await countGuildOutages(db.pool)).toBe(1);
    expect(await closeGuildOutage(db.pool, link.guildId)).toMatchObject({ code: 10004 });
    expect(await findGuildOutage(db.pool, link.guildId)).toBeNull();
    expect(await closeGuildOutage(db.pool, link.guildId)).toBeNull();
  });

  it('lets one caller take a due probe, doubles the wait after each failed probe and stops after GUILD_PROBES', async () => {
    const link = await seedLink(db);
    await openGuildOutage(db.pool, link.guildId, 10004);
    expect(await claimGuildProbe(db.pool, link.guildId)).toBe(false); // not due yet
    const waits: number[] = [];
    for (let i = 0; i < GUILD_PROBES; i++) {
      await dueNow(link.guildId);
      expect(await claimGuildProbe(db.pool, link.guildId)).toBe(true);
      expect(await claimGuildProbe(db.pool, link.guildId)).toBe(false); // taken
      const o = (await probeFailed(db.pool, link.guildId))!;
      expect(o.probes).toBe(i + 1);
      if (o.nextProbeAt) waits.push(Math.round((o.nextProbeAt.getTime() - Date.now()) / 60_000));
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60]);
    expect((await findGuildOutage(db.pool, link.guildId))!.nextProbeAt).toBeNull(); // spent: the bot's guild list brings it back
  });

  it('gives a probe back that could not be sent (rate limit): due again at once, though the column rounds the time up', async () => {
    const link = await seedLink(db);
    await openGuildOutage(db.pool, link.guildId, 10004);
    await inLateHalfMillisecond(db.pool, async (c) => {
      await c.query('UPDATE guild_outage SET next_probe_at = localtimestamp WHERE guild_id = $1', [link.guildId]);
      expect(await claimGuildProbe(c, link.guildId)).toBe(true);
      await releaseGuildProbe(c, link.guildId);
      expect(await claimGuildProbe(c, link.guildId)).toBe(true);
    });
  });

  it('is announced once per outage, by whoever meets it first', async () => {
    const link = await seedLink(db);
    await openGuildOutage(db.pool, link.guildId, 10004);
    expect(await markOutageAnnounced(db.pool, link.guildId)).toBe(true);
    expect(await markOutageAnnounced(db.pool, link.guildId)).toBe(false);
    await closeGuildOutage(db.pool, link.guildId);
    await openGuildOutage(db.pool, link.guildId, 10004);
    expect(await markOutageAnnounced(db.pool, link.guildId)).toBe(true);
  });
});
