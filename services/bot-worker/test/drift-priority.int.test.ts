import type { RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync } from '@rolelink/queue';
import { createMetrics, memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import { ROLE, guildSeed, ids, insertLink, upsertGuild, waitFor, writeList } from './support/harness';
import type { BotWorker } from '../src/worker';

// Which guild the drift poll reads next (docs/sync-engine.md "Which guild next"), end to end: the real
// poll against the emulator, PostgreSQL and Redis, at a share of 2 reads/s and one read a tick, so
// changed guilds and quiet ones compete for every read.
const QUIET = Array.from({ length: 10 }, (_, i) => `76000000000000000${i}`);
const HAND_EDITED = '761000000000000001';
const CHANGED = '761000000000000002';
const GUILDS = [...QUIET, HAND_EDITED, CHANGED];
const members = ids(5);
const PER_SECOND = 2;
const log = memoryLogger('bot-worker', 'warn');
const metrics = createMetrics('bot-worker', { defaultMetrics: false });

let harness: InProcessBot;
let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;

beforeAll(async () => {
  harness = await startInProcessBot({
    logger: log.logger,
    metrics,
    concurrency: 2,
    drift: { everyMs: 1_000, floorPerSecond: PER_SECOND, maxPerSecond: PER_SECOND },
  });
  ({ emulator, db, bot } = harness);
  // Every read the poll finishes, in order, as PostgreSQL sees it (the test's own database).
  await db.pool
    .query(`CREATE TABLE test_poll_log (n bigserial PRIMARY KEY, guild_id bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION test_log_poll() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO test_poll_log (guild_id) VALUES (NEW.guild_id); RETURN NEW; END $$;
    CREATE TRIGGER test_log_poll AFTER UPDATE OF polled_at ON drift_poll FOR EACH ROW WHEN (NEW.polled_at IS DISTINCT FROM OLD.polled_at) EXECUTE FUNCTION test_log_poll();`);
  emulator.state.seed({ guilds: GUILDS.map((g) => guildSeed(g, members.length)) });
  for (const g of GUILDS) {
    await upsertGuild(db.pool, g, 'free');
    await insertLink(db.pool, { guildId: g, roleId: ROLE.linked }); // active, empty list: nothing for the bot to change
  }
}, 60_000);
afterAll(() => harness?.close());

const reads = async (after = 0) =>
  (
    await db.pool.query<{ n: string; guild_id: string; at: Date }>(
      'SELECT n::text, guild_id::text, at FROM test_poll_log WHERE test_poll_log.n > $1 ORDER BY test_poll_log.n',
      [after],
    )
  ).rows;
const readCount = async () =>
  Number((await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM test_poll_log')).rows[0]!.n);
const countBy = (rows: { guild_id: string }[]) =>
  rows.reduce((m, r) => m.set(r.guild_id, (m.get(r.guild_id) ?? 0) + 1), new Map<string, number>());

describe('drift poll priority (changed guilds first, quiet ones still covered, within the share)', () => {
  it('reads a hand-edited guild and one whose roles the bot changed ahead of quiet guilds, and still reads every quiet guild', async () => {
    // A first round: every guild read once (the poll finds where each log stands).
    await waitFor(reads, (rows) => countBy(rows).size === GUILDS.length, {
      what: 'every guild read once',
      progress: (rows) => rows.length,
    });

    // A hand edit in one guild (the owner gives the linked role); the bot changes roles in another (a list arrives).
    emulator.state.setMemberRoles(HAND_EDITED, members[0]!, [ROLE.linked]);
    const changedLink = (
      await db.pool.query<{ id: string }>('SELECT id::text FROM role_link WHERE guild_id = $1', [CHANGED])
    ).rows[0]!.id;
    await writeList(db.pool, changedLink, members.slice(0, 3));
    await enqueueLinkSync(bot.producer, changedLink);
    const marks = () =>
      db.pool
        .query<{ hand: boolean; link: boolean }>(
          'SELECT (SELECT hand_edit_at IS NOT NULL FROM drift_poll WHERE guild_id = $1) AS hand, (SELECT link_changed_at IS NOT NULL FROM drift_poll WHERE guild_id = $2) AS link',
          [HAND_EDITED, CHANGED],
        )
        .then((r) => r.rows[0]!);
    await waitFor(marks, (m) => m.hand && m.link, {
      what: 'the hand edit seen and the link change noted',
      progress: () => readCount(),
    });
    const from = Number((await reads()).at(-1)!.n);

    // No starvation: every quiet guild is read again, within a bounded number of reads (a fifth of the
    // turns are quiet guilds': 10 quiet guilds need at most ~50 reads; the bound counts reads, not time).
    const after = await waitFor(
      () => reads(from),
      (rows) => {
        if (rows.length > 90)
          throw new Error(
            `quiet guilds not all read within ${rows.length} reads: ${JSON.stringify([...countBy(rows)])}`,
          );
        const seen = countBy(rows);
        return QUIET.every((g) => seen.has(g));
      },
      { what: 'every quiet guild read again', progress: (rows) => rows.length },
    );
    const count = countBy(after);
    const quietMost = Math.max(...QUIET.map((g) => count.get(g) ?? 0));
    // Priority: in the same reads, each changed guild was read more often than any quiet one.
    expect(count.get(HAND_EDITED) ?? 0).toBeGreaterThan(quietMost);
    expect(count.get(CHANGED) ?? 0).toBeGreaterThan(quietMost);
    // Fairness the other way: quiet guilds got at least their fifth of the turns.
    const quietReads = QUIET.reduce((n, g) => n + (count.get(g) ?? 0), 0);
    expect(quietReads).toBeGreaterThanOrEqual(Math.floor(after.length / 5));

    // The coverage gauges (the poll's own figures, read from PostgreSQL at scrape time).
    const gauge = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values;
    const changedAge = (await gauge('rolelink_drift_poll_age_seconds')).find(
      (v) => v.labels.guilds === 'changed',
    )!.value;
    expect(changedAge).toBeGreaterThanOrEqual(0);
    expect(changedAge).toBeLessThan(3_600);
    expect((await gauge('rolelink_drift_poll_guilds')).map((v) => [v.labels.guilds, v.value]).sort()).toEqual([
      ['all', GUILDS.length],
      ['changed', 2],
    ]);
  }, 240_000);

  it('stays within its share of the global budget (DRIFT_POLL_SHARE): at most 2 reads per second over the whole run', async () => {
    const rows = await reads();
    expect(rows.length).toBeGreaterThan(20);
    const spanSeconds = (rows.at(-1)!.at.getTime() - rows[0]!.at.getTime()) / 1_000;
    // The budget grants 2 per one-second window; a read finishes after its grant, so allow the two windows at the ends.
    expect(rows.length).toBeLessThanOrEqual(PER_SECOND * (Math.ceil(spanSeconds) + 2));
  });
});
