import type { Job } from 'bullmq';
import type { RunningEmulator } from '@rolelink/platform-emulator';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { recordEventsDroppedNote } from '@rolelink/db/notifications';
import { replaceList } from '@rolelink/db/list';
import { putNotifySettings, recordPluginHealthNotifications } from '@rolelink/db/notifications';
import { applicationKey } from '@rolelink/platform-client';
import { memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { GUILD_A, GUILD_B, ROLE, guildSeed, ids, insertLink, upsertGuild, waitFor, writeList } from './support/harness';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import type { BotWorker } from '../src/worker';
import { dmChannelKey } from '../src/notify/dm-channels';

// Notifications end to end: rows written as the events write them, the bot worker's
// notify queue (real Redis) delivering them to the platform emulator, read back from its state.

const OWNER = '790000000000000001';
const CHANNEL = '720000000000000001';
const PLUGIN = 'https://plugin.example.com';
const log = memoryLogger('bot-worker', 'warn');
let harness: InProcessBot;
let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;

beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 1 });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());

beforeEach(async () => {
  emulator.state.reset();
  emulator.state.seed({
    guilds: [{ ...guildSeed(GUILD_A, 50), channels: [{ id: CHANNEL, name: 'admins' }] }, guildSeed(GUILD_B, 5)],
  });
  await db.pool.query('TRUNCATE guild, role_link, link_user, held_change, notification, guild_notify_settings CASCADE');
  await upsertGuild(db.pool, GUILD_A);
  // The emulator's DM channels went with its reset: so do the worker's cached ids of them.
  await harness.redis.del(dmKey(OWNER), dmKey(NEW_OWNER));
});

/** A sweep job run to its end: its return value says how many guilds it found due. */
async function sweep(): Promise<{ guilds: number }> {
  const id = await bot.notifyProducer.add('sweep', {});
  const job = await waitFor(
    () => bot.notifyProducer.queue.getJob(id!),
    (j: Job | undefined) => j?.finishedOn !== undefined,
    { what: 'the sweep to finish' },
  );
  return job!.returnvalue as { guilds: number };
}
/** Waits until the guild has no pending notification (the deliver job marked every row). */
const delivered = (guildId: string) =>
  waitFor(
    () =>
      db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notification WHERE guild_id = $1 AND delivery = 'pending'`,
        [guildId],
      ),
    (r) => r.rows[0]!.n === 0,
    { what: 'every notification delivered' },
  );
const rows = async (guildId: string) =>
  (
    await db.pool.query<{ kind: string; delivery: string; delivered_to: string[] }>(
      'SELECT kind, delivery, delivered_to FROM notification WHERE guild_id = $1 ORDER BY id',
      [guildId],
    )
  ).rows;
const dms = () => emulator.state.messages.filter((m) => m.recipientId === OWNER);
/** A member of GUILD_A (the first generated one), to whom the owner transfers the guild. */
const NEW_OWNER = ids(1)[0]!;
const dmKey = (userId: string) => dmChannelKey(harness.prefix, applicationKey(emulator.botToken), userId);
/** The three routes a DM may take: the guild (its owner), Create DM, the post. */
const DM_ROUTES = ['GET /guilds/:guildId', 'POST /users/@me/channels', 'POST /channels/:channelId/messages'];
/** A sweep and the guild's delivery, with the requests it made on each of DM_ROUTES. */
async function deliverCounting(guildId: string): Promise<number[]> {
  const before = emulator.state.stats().byRoute;
  await sweep();
  await delivered(guildId);
  const after = emulator.state.stats().byRoute;
  return DM_ROUTES.map((r) => (after[r] ?? 0) - (before[r] ?? 0));
}

/** A list of 40 replaced by one of 5, as a plugin's PUT: the shrink check holds it and records the notification. */
async function heldRemoval(roleId: string = ROLE.linked): Promise<string> {
  const link = await insertLink(db.pool, { guildId: GUILD_A, roleId });
  await writeList(db.pool, link, ids(40));
  const outcome = await replaceList(db.pool, { linkId: link, source: { kind: 'ids', ids: ids(5) }, storedLimit: 1000 });
  expect(outcome.kind).toBe('held');
  return link;
}

describe('notifications delivered by the bot worker', () => {
  it('sends a held removal to the owner as a DM, once, with the numbers of the hold', async () => {
    await heldRemoval();
    expect(await sweep()).toEqual({ guilds: 1 });
    await delivered(GUILD_A);

    expect(dms()).toHaveLength(1);
    expect(dms()[0]!.content).toContain(`<@&${ROLE.linked}>: 40 → 5 users (35 removals)`);
    expect(await rows(GUILD_A)).toEqual([{ kind: 'removal_held', delivery: 'sent', delivered_to: ['dm'] }]);
    // Delivered rows are not due again: a second sweep finds nothing and sends nothing.
    expect(await sweep()).toEqual({ guilds: 0 });
    expect(dms()).toHaveLength(1);
  });

  it('notifies an unhealthy plugin once however often the check fails, and once when it recovers', async () => {
    await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable')).toBe(1);
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'unhealthy')).toBe(0);
    await sweep();
    await delivered(GUILD_A);
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'unhealthy')).toBe(0);
    // Degraded is neither: no notification, and the link stays "unhealthy" for the dedupe.
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'degraded')).toBe(0);
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'healthy')).toBe(1);
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'healthy')).toBe(0);
    await sweep();
    await delivered(GUILD_A);

    expect(dms().map((m) => m.content.split('\n')[0])).toEqual([
      'A plugin server of a role link is unhealthy or unreachable:',
      'A plugin server of a role link is healthy again:',
    ]);
    expect(dms()[0]!.content).toContain(`<@&${ROLE.linked}>: ${PLUGIN} is unreachable`);
    expect((await rows(GUILD_A)).map((r) => r.kind)).toEqual(['plugin_unhealthy', 'plugin_recovered']);
  });

  it('never notifies a recovery of a plugin that was never reported unhealthy', async () => {
    await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    expect(await recordPluginHealthNotifications(db.pool, PLUGIN, 'healthy')).toBe(0);
  });

  it('folds a burst into one message and holds the next one until the kind’s window has passed', async () => {
    await heldRemoval(ROLE.linked);
    await heldRemoval(ROLE.other);
    await sweep();
    await delivered(GUILD_A);
    expect(dms()).toHaveLength(1);
    expect(dms()[0]!.content).toMatch(/^Role Link held 2 large removals/);
    expect((await rows(GUILD_A)).map((r) => r.delivery)).toEqual(['sent', 'folded']);

    // A third inside the window: the sweep does not find the guild due, nothing is sent, the row waits.
    await heldRemoval(ROLE.third);
    expect(await sweep()).toEqual({ guilds: 0 });
    expect(dms()).toHaveLength(1);
    expect((await rows(GUILD_A)).map((r) => r.delivery)).toEqual(['sent', 'folded', 'pending']);

    // Another kind has its own window: a plugin alert goes out now.
    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unhealthy');
    expect(await sweep()).toEqual({ guilds: 1 });
    await waitFor(dms, (m) => m.length === 2, { what: 'the plugin alert' });

    // The window ends (the sent row moved 11 minutes back, instead of waiting): the held one goes out.
    await db.pool.query(
      `UPDATE notification SET delivered_at = delivered_at - interval '11 minutes' WHERE kind = 'removal_held' AND delivery = 'sent'`,
    );
    expect(await sweep()).toEqual({ guilds: 1 });
    await delivered(GUILD_A);
    expect(dms()).toHaveLength(3);
    expect(dms()[2]!.content).toContain(`<@&${ROLE.third}>`);
  });

  it('follows the guild’s settings: a kind that is off sends nothing, a channel gets the message', async () => {
    await putNotifySettings(db.pool, GUILD_A, { events: ['plugin_unhealthy'], dm_owner: false, channel_id: CHANNEL });
    await heldRemoval();
    await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.other });
    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable');
    await sweep();
    await delivered(GUILD_A);

    expect(dms()).toEqual([]);
    expect(emulator.state.messages.map((m) => [m.channelId, m.guildId])).toEqual([[CHANNEL, GUILD_A]]);
    expect(await rows(GUILD_A)).toEqual([
      { kind: 'removal_held', delivery: 'off', delivered_to: [] },
      { kind: 'plugin_unhealthy', delivery: 'sent', delivered_to: ['channel'] },
      { kind: 'plugin_unhealthy', delivery: 'folded', delivered_to: ['channel'] },
    ]);
  });

  it('lists a dropped plugin event without a message by default, and messages the owner once the guild turns events_dropped on', async () => {
    const dropped = async (roleId: string) => {
      const link = await insertLink(db.pool, { guildId: GUILD_A, roleId });
      await subscribeLinkEvents(db.pool, link, ['removal.held']);
      expect(
        await recordEventsDroppedNote(db.pool, link, {
          event_id: 'evt_7',
          kind: 'removal.held',
          attempts: 31,
          plugin_url: PLUGIN,
        }),
      ).toBe(true);
    };
    await dropped(ROLE.linked);
    await sweep();
    await delivered(GUILD_A);
    expect(dms()).toEqual([]);

    await putNotifySettings(db.pool, GUILD_A, { events: ['events_dropped'], dm_owner: true, channel_id: null });
    await dropped(ROLE.other);
    await sweep();
    await delivered(GUILD_A);
    expect(await rows(GUILD_A)).toEqual([
      { kind: 'events_dropped', delivery: 'off', delivered_to: [] },
      { kind: 'events_dropped', delivery: 'sent', delivered_to: ['dm'] },
    ]);
    expect(dms()).toHaveLength(1);
    expect(dms()[0]!.content.split('\n').slice(0, 2)).toEqual([
      'A plugin server did not take an event for 24 hours; Role Link gave up on it:',
      `• <@&${ROLE.other}>: removal.held to ${PLUGIN} after 31 attempts (re-send it from the link's Events tab)`,
    ]);
  });

  it('marks a notification failed when the platform refuses every target (a channel that is gone)', async () => {
    await putNotifySettings(db.pool, GUILD_A, {
      events: ['removal_held'],
      dm_owner: false,
      channel_id: '729999999999999999',
    });
    await heldRemoval();
    await sweep();
    await delivered(GUILD_A);
    expect(emulator.state.messages).toEqual([]);
    expect(await rows(GUILD_A)).toEqual([{ kind: 'removal_held', delivery: 'failed', delivered_to: [] }]);
  });
});

describe('the owner’s DM channel, kept per recipient in Redis', () => {
  it('posts a later DM to the same owner without Create DM: the channel id comes from the cache', async () => {
    await heldRemoval();
    expect(await deliverCounting(GUILD_A)).toEqual([1, 1, 1]);
    expect(await harness.redis.get(dmKey(OWNER))).toBe(dms()[0]!.channelId);

    // Another kind, another delivery: the owner is asked again, the channel is not.
    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable');
    expect(await deliverCounting(GUILD_A)).toEqual([1, 0, 1]);
    expect(dms().map((m) => m.content.split('\n')[0])).toEqual([
      'Role Link held a large removal until you confirm it:',
      'A plugin server of a role link is unhealthy or unreachable:',
    ]);
    expect(new Set(dms().map((m) => m.channelId)).size).toBe(1);
  });

  it('asks for the owner once per delivery, however many kinds it sends', async () => {
    await heldRemoval();
    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable');
    expect(await deliverCounting(GUILD_A)).toEqual([1, 1, 2]);
    expect(dms()).toHaveLength(2);
  });

  it('drops a cached channel the platform does not know (10003), opens the DM again once, and caches the right one', async () => {
    await harness.redis.set(dmKey(OWNER), '899999999999999990');
    await heldRemoval();
    expect(await deliverCounting(GUILD_A)).toEqual([1, 1, 2]);
    expect(dms()).toHaveLength(1);
    expect(await rows(GUILD_A)).toEqual([{ kind: 'removal_held', delivery: 'sent', delivered_to: ['dm'] }]);
    expect(await harness.redis.get(dmKey(OWNER))).toBe(dms()[0]!.channelId);
  });

  it('gives up on an owner who turned DMs off (50007) after opening the DM again once: the row is failed', async () => {
    await heldRemoval();
    await deliverCounting(GUILD_A);
    emulator.state.setDmsOpen(OWNER, false);
    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable');
    expect(await deliverCounting(GUILD_A)).toEqual([1, 1, 2]);
    expect(dms()).toHaveLength(1);
    expect((await rows(GUILD_A)).map((r) => [r.kind, r.delivery])).toEqual([
      ['removal_held', 'sent'],
      ['plugin_unhealthy', 'failed'],
    ]);
  });

  it('writes to whoever owns the guild now: after a transfer the new owner gets the DM, not the cached channel of the old one', async () => {
    await heldRemoval();
    await deliverCounting(GUILD_A);
    const oldChannel = dms()[0]!.channelId;
    emulator.state.transferOwnership(GUILD_A, NEW_OWNER);

    await recordPluginHealthNotifications(db.pool, PLUGIN, 'unreachable');
    expect(await deliverCounting(GUILD_A)).toEqual([1, 1, 1]);
    expect(emulator.state.messages.map((m) => m.recipientId)).toEqual([OWNER, NEW_OWNER]);
    expect(emulator.state.messages[1]!.channelId).not.toBe(oldChannel);
    expect(await harness.redis.get(dmKey(NEW_OWNER))).toBe(emulator.state.messages[1]!.channelId);
    expect(await harness.redis.get(dmKey(OWNER))).toBe(oldChannel);
  });
});
