// `pnpm bench sync outage [--minutes=60] [--users=10000]`: the figures for a guild the bot is out
// of. A premium link lists --users members of one guild (all of them in the guild); the bot is removed
// from the guild before the first sync, then one worker process (the service's defaults: reconcile every
// 15 min, drift poll every 30 s) runs for --minutes while the emulator counts every platform call it receives, by
// route and status: the calls per hour while the bot is out (a figure per hour only for a window of an hour
// or more). Then the bot is added back and the bench does what the
// dashboard does when it sees the bot in the guild list again (the guild's probe made due, the links asked
// to sync: services/dashboard/src/routes/guilds.routes.ts probeNowIfBack), and times the bot's return →
// every listed member holding the role, beside the platform's lower bound for it (the list's size at the
// guild's role bucket rate). --no-return stops after the outage window (for code without guild_outage).
import { randomBytes } from 'node:crypto';
import { QueueName } from '@rolelink/contracts';
import { startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection } from '@rolelink/queue';
import { guildSeed, ids, insertLink, ROLE, upsertGuild, writeList } from '../services/bot-worker/test/support/harness';
import { REDIS_URL, scratchDb, sleep, spawnWorkers, stopWorkers, teardownCase, workerEnv } from './sync-support';

const GUILD = '700000000000000301';
/** Above the global limit's share a single guild would get: the role bucket alone bounds the return's sync. */
const BUCKET = { limit: 40, windowMs: 1_000 };

export async function benchOutage(
  out: (s: string) => void,
  o: { users: number; minutes: number; measureReturn: boolean },
): Promise<void> {
  const emulator = await startEmulator({
    port: 0,
    roleBucket: BUCKET,
    globalPerSecond: 50,
    seed: { guilds: [guildSeed(GUILD, o.users)] },
  });
  const db = await scratchDb('outage');
  const prefix = `rlbench-${randomBytes(4).toString('hex')}`;
  const redis = producerConnection(REDIS_URL);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  try {
    await upsertGuild(db.pool, GUILD, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD, roleId: ROLE.linked });
    await writeList(db.pool, link, ids(o.users));
    emulator.state.setRules(GUILD, { botInGuild: false });
    // The service's own intervals (reconcile every 15 min, drift poll every 30 s), not the bench's hourly reconcile.
    const [worker] = spawnWorkers(1, workerEnv({ db, prefix, emulator }, { RECONCILE_EVERY_MS: '900000' }));
    await enqueueLinkSync(producer, link);
    const started = performance.now();
    const windowMs = o.minutes * 60_000;
    const timeline: string[] = [];
    let lastCount = 0;
    while (performance.now() - started < windowMs) {
      await sleep(1_000);
      const n = emulator.state.stats().requests;
      if (n !== lastCount) {
        timeline.push(`${((performance.now() - started) / 60_000).toFixed(1)} min: ${n}`);
        lastCount = n;
      }
    }
    const during = emulator.state.stats();
    // The first minutes hold the calls that open the outage: only a whole hour is a figure per hour.
    const perHour =
      o.minutes >= 60
        ? ` = **${((during.requests * 60) / o.minutes).toFixed(1)} per hour**`
        : ' (not scaled to an hour: the first minutes hold the calls that open the outage)';
    out(`### Bot out of a guild with a ${o.users.toLocaleString('en-US')}-member list, ${o.minutes} min`);
    out(
      `- platform calls while the bot is out: **${during.requests}** in ${o.minutes} min${perHour} (${o.users.toLocaleString('en-US')} listed users)`,
    );
    out(
      `- by route ${JSON.stringify(during.byRoute)}; by status ${JSON.stringify(during.byStatus)}; invalid requests ${during.invalidRequestsTotal}`,
    );
    out(`- cumulative calls over time: ${timeline.join('; ') || 'none'}`);
    if (!o.measureReturn) return void (await stopWorkers([worker!]));

    // The bot is back; what the dashboard does on seeing it in the guild list (loaded here, not above: code
    // from before guild_outage, run with --no-return, has no such function).
    const { releaseGuildProbe } = await import('@rolelink/db/sync');
    const { enabledLinksOfGuild } = await import('@rolelink/db/links');
    const backAt = performance.now();
    emulator.state.setRules(GUILD, { botInGuild: true });
    await releaseGuildProbe(db.pool, GUILD);
    for (const id of await enabledLinksOfGuild(db.pool, GUILD)) await enqueueLinkSync(producer, id);
    const added = () => emulator.state.stats().roleChangesApplied.added;
    let lastProgressAt = performance.now();
    let lastAdded = 0;
    while (added() < o.users && performance.now() - lastProgressAt < 300_000) {
      await sleep(20);
      if (added() !== lastAdded) [lastAdded, lastProgressAt] = [added(), performance.now()];
    }
    const tookS = (performance.now() - backAt) / 1000;
    await stopWorkers([worker!]);
    const boundS = o.users / (BUCKET.limit / (BUCKET.windowMs / 1000));
    out(
      `- the bot's return → the list applied: **${tookS.toFixed(1)} s** for ${added().toLocaleString('en-US')}/${o.users.toLocaleString('en-US')} adds; platform's lower bound ${o.users.toLocaleString('en-US')} ÷ ${BUCKET.limit}/s (the guild's role bucket) = ${boundS.toFixed(0)} s; ratio **${(tookS / boundS).toFixed(3)}**`,
    );
  } finally {
    await teardownCase({ producer, redis, emulator, db, prefix });
  }
}
