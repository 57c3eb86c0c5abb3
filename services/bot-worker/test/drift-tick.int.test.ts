import { applicationKey } from '@rolelink/platform-client';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { BudgetShare } from '../src/budget-share';
import { runDriftPoll, type DriftPollDeps } from '../src/drift/drift-poll';
import { sharedRepairDeps } from '../src/repair-deps';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import { ROLE, guildSeed, insertLink, upsertGuild, waitFor } from './support/harness';

// Consecutive ticks of the drift poll when its reads are slow (as when they wait at the global limiter
// behind a saturated sync engine): the next tick must still spend the budget. A tick that held its lock
// until its last read answered would leave the next tick, due while that read was out, the lock taken, so
// it would be skipped and the budget's windows until the tick after would go unspent (docs/benchmarks.md,
// `pnpm bench scale`). The real poll against the emulator, PostgreSQL and Redis; no job scheduler: the
// test runs the ticks.
const GUILDS = Array.from({ length: 12 }, (_, i) => `7700000000000000${String(i).padStart(2, '0')}`);
const TICK_MS = 1_000;
const PER_SECOND = 4;
/** Longer than a tick: every read of the first tick is still out when the next tick is due. */
const LATENCY_MS = 3_000;
const log = memoryLogger('bot-worker', 'warn');

let harness: InProcessBot;
let deps: DriftPollDeps;

beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 1 });
  const { emulator, db, client, redis, prefix, bot } = harness;
  emulator.state.seed({ guilds: GUILDS.map((g) => guildSeed(g, 3)) });
  for (const g of GUILDS) {
    await upsertGuild(db.pool, g, 'free');
    await insertLink(db.pool, { guildId: g, roleId: ROLE.linked }); // active, empty list: nothing to repair
  }
  const botUserId = client.api.users.getCurrent().then((u) => u.id);
  deps = {
    ...sharedRepairDeps({
      db: db.pool,
      api: client.api,
      redis,
      prefix,
      appKey: applicationKey(emulator.botToken),
      logger: log.logger,
    }),
    budget: new BudgetShare(redis, `${prefix}:drift:budget`, { floorPerSecond: PER_SECOND, maxPerSecond: PER_SECOND }),
    everyMs: 60_000,
    tickMs: TICK_MS,
    botUserId: () => botUserId,
    enqueueSync: (linkId) => enqueueLinkSync(bot.producer, linkId),
  };
  await botUserId;
  emulator.state.configure({ latencyMs: LATENCY_MS });
}, 60_000);
afterAll(() => harness?.close());

describe('drift poll ticks while reads are slow', () => {
  it('the next tick spends the budget while the reads of the one before are still out', async () => {
    const { db } = harness;
    const first = runDriftPoll(deps);
    // The first tick has claimed (its end is now at most one tick away), and its reads take longer than a tick.
    await waitFor(
      async () =>
        Number(
          (
            await db.pool.query<{ n: string }>(
              'SELECT count(*)::text AS n FROM drift_poll WHERE next_poll_at > localtimestamp(3)',
            )
          ).rows[0]!.n,
        ),
      (n) => n > 0,
      { what: 'the first tick claiming', progress: (n) => n },
    );
    const second = await runDriftPoll(deps);
    const firstResult = await first;
    expect(firstResult.guilds).toBeGreaterThan(0);
    // Before: { guilds: 0 }, the lock still held by the first tick's reads.
    expect(second.guilds).toBeGreaterThan(0);
    // Different guilds: a guild being read stays claimed until its read is done.
    const read = (
      await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM drift_poll WHERE polled_at IS NOT NULL')
    ).rows[0]!.n;
    expect(Number(read)).toBe(firstResult.guilds + second.guilds);
  }, 120_000);
});
