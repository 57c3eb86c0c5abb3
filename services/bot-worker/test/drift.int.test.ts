import type { RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
  GUILD_B,
  ROLE,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';
import type { BotWorker } from '../src/worker';

const AUDIT_ROUTE = 'GET /guilds/:guildId/audit-logs';
const MEMBERS_ROUTE = 'GET /guilds/:guildId/members';
const members = ids(40);
const log = memoryLogger('bot-worker', 'debug');

let harness: InProcessBot;
let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;

beforeAll(async () => {
  // A full reconcile would also repair the hand edits, so none is scheduled: only the poll can. (It was
  // "a day away", yet a reconcile read the member listing during the first test in two busy runs: BullMQ
  // places `every` jobs on fixed time bins, and the schedulers are now registered after start-up.)
  harness = await startInProcessBot({
    logger: log.logger,
    concurrency: 4,
    drift: { everyMs: 1_000, floorPerSecond: 5, maxPerSecond: 10 },
  });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());

const holders = (guild: string) => sorted(emulator.state.holders(guild, ROLE.linked));
const auditReads = () => emulator.state.stats().byRoute[AUDIT_ROUTE] ?? 0;
const pollRow = async (guild: string) =>
  (
    await db.pool.query<{ status: string; repaired: string; last_entry_id: string | null }>(
      'SELECT status, repaired::text, last_entry_id::text FROM drift_poll WHERE guild_id = $1',
      [guild],
    )
  ).rows[0];

/**
 * Waits for `pass` while the poll keeps reading: the deadline is counted in audit-log reads, not in
 * time, so a slow machine that is still polling never fails, and a poll that reads without repairing does.
 */
async function withinReads<T>(
  read: () => Promise<T> | T,
  pass: (v: T) => boolean,
  reads: number,
  what: string,
): Promise<T> {
  const start = auditReads();
  return waitFor(
    read,
    (v) => {
      if (pass(v)) return true;
      if (auditReads() - start > reads) throw new Error(`${what}: not after ${reads} audit-log reads`);
      return false;
    },
    { what, progress: () => auditReads() },
  );
}

async function syncedLink(guild: string, list: string[]): Promise<string> {
  await upsertGuild(db.pool, guild, 'free');
  const link = await insertLink(db.pool, { guildId: guild, roleId: ROLE.linked });
  await writeList(db.pool, link, list);
  await enqueueLinkSync(bot.producer, link);
  await waitFor(
    () => linkRow(db.pool, link),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what: 'the first sync', progress: () => holders(guild).length },
  );
  expect(holders(guild)).toEqual(sorted(list));
  return link;
}

describe('drift repair by polling the audit log', () => {
  beforeEach(async () => {
    emulator.state.reset();
    emulator.state.seed({ guilds: [guildSeed(GUILD_A, members.length), guildSeed(GUILD_B, members.length)] });
    await db.pool.query(
      'TRUNCATE guild, role_link, link_user, applied_member, link_sync_state, list_change, drift_poll CASCADE',
    );
    log.lines.length = 0;
  });

  it('repairs a hand removal from a listed user and a hand add to an unlisted one, without a full reconcile', async () => {
    const list = members.slice(0, 10);
    const link = await syncedLink(GUILD_A, list);
    // The poll has read the bot's own adds (the first sync's) and found nothing to repair in them.
    const polled = await withinReads(
      () => pollRow(GUILD_A),
      (r) => r?.last_entry_id != null,
      10,
      'a first read of the log',
    );
    expect(polled).toMatchObject({ status: 'ok', repaired: '0' });

    const [listed, unlisted] = [list[3]!, members[20]!];
    emulator.state.setMemberRoles(GUILD_A, listed, []);
    emulator.state.setMemberRoles(GUILD_A, unlisted, [ROLE.linked]);
    expect(holders(GUILD_A)).not.toEqual(sorted(list));

    await withinReads(
      () => holders(GUILD_A),
      (h) => h.join() === sorted(list).join(),
      10,
      'the hand edits repaired',
    );
    expect(await pollRow(GUILD_A)).toMatchObject({ status: 'ok', repaired: '2' });
    // Just those two users were touched: a re-add and a removal, both by the bot, after the hand edits.
    const byBot = emulator.state.audit
      .list(GUILD_A)
      .filter(
        (e) => e.actorId === emulator.state.botUserId && e.changed && (e.userId === listed || e.userId === unlisted),
      );
    expect(byBot.map((e) => [e.userId, e.action])).toEqual(
      expect.arrayContaining([
        [listed, 'member_role_add'],
        [unlisted, 'member_role_remove'],
      ]),
    );
    expect(emulator.state.stats().roleChangesApplied).toMatchObject({ added: list.length + 1, removed: 1 });
    // No full reconcile: the member listing was never read.
    expect(emulator.state.stats().byRoute[MEMBERS_ROUTE]).toBeUndefined();
    expect(
      log.lines.some((l) => l.message === 'drift repair found hand edits' && l.linkId === link && l.users === 2),
    ).toBe(true);

    // The bot's repair calls are in the log too: later reads do not take them for drift.
    const reads = auditReads();
    await withinReads(
      () => auditReads(),
      (n) => n >= reads + 3,
      10,
      'three more reads',
    );
    expect(await pollRow(GUILD_A)).toMatchObject({ repaired: '2' });
    expect(holders(GUILD_A)).toEqual(sorted(list));
  });

  it('says once that the bot cannot reach a guild when the poll opens its outage, and once that it is back when the outage closes', async () => {
    await syncedLink(GUILD_B, members.slice(0, 5));
    await withinReads(
      () => pollRow(GUILD_B),
      (r) => r?.last_entry_id != null,
      10,
      'a first read of the log',
    );
    emulator.state.setRules(GUILD_B, { botInGuild: false });
    const outage = () =>
      db.pool
        .query<{ code: number }>('SELECT code FROM guild_outage WHERE guild_id = $1', [GUILD_B])
        .then((r) => r.rows[0] ?? null);
    await withinReads(outage, (o) => o !== null, 10, 'the outage opened by the poll');
    const said = (level: string, text: string) =>
      log.lines.filter((l) => l.level === level && String(l.message).includes(text) && l.guildId === GUILD_B);
    expect(said('warn', 'the bot cannot reach the guild')).toEqual([
      expect.objectContaining({ code: (await outage())!.code }),
    ]);

    emulator.state.setRules(GUILD_B, { botInGuild: true });
    await bot.producer.add('reconcile', {});
    await waitFor(outage, (o) => o === null, { what: 'the outage closed by the reconcile' });
    expect(said('info', 'guild available again')).toHaveLength(1);
    expect(said('warn', 'the bot cannot reach the guild')).toHaveLength(1);
  });

  it('without View Audit Log, notes it and leaves the guild to the reconcile, while syncs go on', async () => {
    const botRole = emulator.state.guild(GUILD_B)!.botRole;
    botRole.permissions &= ~0x80n;
    const list = members.slice(0, 5);
    await syncedLink(GUILD_B, list);
    await withinReads(
      () => pollRow(GUILD_B),
      (r) => r?.status === 'no_permission',
      10,
      'the refusal recorded',
    );
    expect(
      log.lines.filter(
        (l) => l.level === 'warn' && String(l.message).includes('lacks View Audit Log') && l.guildId === GUILD_B,
      ),
    ).toHaveLength(1);
    // Asked again only after an hour: a refused guild does not spend invalid requests on every tick.
    const { rows } = await db.pool.query<{ later: boolean }>(
      "SELECT next_poll_at > localtimestamp + interval '50 minutes' AS later FROM drift_poll WHERE guild_id = $1",
      [GUILD_B],
    );
    expect(rows[0]!.later).toBe(true);
  });
});
