import { putNotifySettings } from '@rolelink/db/notifications';
import { replaceList } from '@rolelink/db/list';
import { memoryLogger } from '@rolelink/runtime';
import { GUILD_A, ROLE, guildSeed, ids, insertLink, upsertGuild, waitFor, writeList } from './support/harness';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';

// The notifications' share of the global budget (NOTIFY_SHARE): every request a delivery makes
// waits for it, across workers, so a burst of notifications never takes the syncs' and the poll's budget.

const CHANNEL = '720000000000000001';
const log = memoryLogger('bot-worker', 'warn');
let harness: InProcessBot;

beforeAll(async () => {
  // One request per second, never more (no globalLoad: the floor only).
  harness = await startInProcessBot({
    logger: log.logger,
    concurrency: 1,
    notifyBudget: { floorPerSecond: 1, maxPerSecond: 1 },
  });
});
afterAll(() => harness?.close());

it('spends at most its share: the four requests of a DM and a channel post take four of its one-second windows', async () => {
  const { emulator, db, bot } = harness;
  emulator.state.reset();
  emulator.state.seed({ guilds: [{ ...guildSeed(GUILD_A, 50), channels: [{ id: CHANNEL, name: 'admins' }] }] });
  await upsertGuild(db.pool, GUILD_A);
  await putNotifySettings(db.pool, GUILD_A, { events: ['removal_held'], dm_owner: true, channel_id: CHANNEL });
  const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
  await writeList(db.pool, link, ids(40));
  expect(
    (await replaceList(db.pool, { linkId: link, source: { kind: 'ids', ids: ids(5) }, storedLimit: 1000 })).kind,
  ).toBe('held');

  const windowOf = (t: number) => Math.floor(t / 1_000);
  const routes = ['GET /guilds/:guildId', 'POST /users/@me/channels', 'POST /channels/:channelId/messages'];
  const counts = () => routes.map((r) => emulator.state.stats().byRoute[r] ?? 0);
  const before = counts();
  const started = Date.now();
  await bot.notifyProducer.add('sweep', {});
  await waitFor(
    () => emulator.state.messages.length,
    (n) => n === 2,
    { what: 'the DM and the channel post' },
  );
  const ended = Date.now();
  // GET the guild (its owner), Create DM, the DM's post, the channel's post: one per window at most.
  expect(counts().map((n, i) => n - before[i]!)).toEqual([1, 1, 2]);
  expect(windowOf(ended) - windowOf(started) + 1).toBeGreaterThanOrEqual(4);
});
