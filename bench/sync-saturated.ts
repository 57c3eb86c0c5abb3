// `pnpm bench sync saturated [--users=3000] [--processes=1]`: "no 429 at a saturated global
// budget". Four premium links in four guilds start their first sync at once; each guild's role bucket is
// raised to 25/s, so together they ask 100/s of a 50/s global limit and the shared limiter alone decides
// what goes. Printed side by side from the same run: the budget used (changes applied per second ÷ 50/s,
// goal ≥ 0.9) and the 429s the emulator answered (goal 0: each one counts toward the platform's
// invalid-request limit), by scope.
import { randomBytes } from 'node:crypto';
import { QueueName } from '@rolelink/contracts';
import { startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection } from '@rolelink/queue';
import { guildSeed, ids, insertLink, ROLE, upsertGuild, writeList } from '../services/bot-worker/test/support/harness';
import {
  REDIS_URL,
  scratchDb,
  sleep,
  spawnWorkers,
  stopWorkers,
  teardownCase,
  verdict,
  workerEnv,
} from './sync-support';

const GUILDS = 4;
const GLOBAL_PER_SECOND = 50;
const BUCKET = { limit: 25, windowMs: 1_000 };

export async function benchSaturated(out: (s: string) => void, perGuild: number, processes: number): Promise<void> {
  const guildIds = Array.from({ length: GUILDS }, (_, i) => (700000000000000200n + BigInt(i)).toString());
  const emulator = await startEmulator({
    port: 0,
    roleBucket: BUCKET,
    globalPerSecond: GLOBAL_PER_SECOND,
    seed: { guilds: guildIds.map((g) => guildSeed(g, perGuild)) },
  });
  const db = await scratchDb('saturated');
  const prefix = `rlbench-${randomBytes(4).toString('hex')}`;
  const redis = producerConnection(REDIS_URL);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  try {
    const links: string[] = [];
    for (const g of guildIds) {
      await upsertGuild(db.pool, g, 'premium');
      const link = await insertLink(db.pool, { guildId: g, roleId: ROLE.linked });
      await writeList(db.pool, link, ids(perGuild));
      links.push(link);
    }
    // The reconcile off: its member listings are not part of the figure (they would share the budget).
    const workers = spawnWorkers(
      processes,
      workerEnv(
        { db, prefix, emulator },
        { WORKER_CONCURRENCY: '16', PLATFORM_GLOBAL_PER_SECOND: String(GLOBAL_PER_SECOND), RECONCILE_EVERY_MS: '0' },
      ),
    );
    for (const l of links) await enqueueLinkSync(producer, l);
    const total = GUILDS * perGuild;
    const applied = () => {
      const a = emulator.state.stats().roleChangesApplied;
      return a.added + a.removed;
    };
    let firstAt = 0;
    const deadline = Date.now() + total * 100 + 120_000;
    while (applied() < total && Date.now() < deadline) {
      if (!firstAt && applied() > 0) firstAt = performance.now();
      await sleep(10);
    }
    const lastAt = performance.now();
    const done = applied();
    await stopWorkers(workers);
    const stats = emulator.state.stats();
    const rate = (done - 1) / ((lastAt - firstAt) / 1000);
    const used = rate / GLOBAL_PER_SECOND;
    const r429 = stats.rateLimited.global + stats.rateLimited.user + stats.rateLimited.shared;
    const bucketRate = BUCKET.limit / (BUCKET.windowMs / 1000);
    out(
      `### Saturated global budget: ${GUILDS} first syncs × ${perGuild.toLocaleString('en-US')} adds, buckets ${bucketRate}/s each (${GUILDS * bucketRate}/s asked), global ${GLOBAL_PER_SECOND}/s, ${processes} worker process${processes > 1 ? 'es' : ''}`,
    );
    out(
      `- budget used: ${rate.toFixed(2)} changes/s ÷ ${GLOBAL_PER_SECOND}/s = **${used.toFixed(3)}** (goal ≥ 0.9) ${verdict(used >= 0.9)} | 429s: **${r429}** of ${stats.requests} requests (goal 0) ${verdict(r429 === 0)} — global ${stats.rateLimited.global}, user ${stats.rateLimited.user}, shared ${stats.rateLimited.shared}`,
    );
    out(
      `- applied ${done}/${total}, elapsed ${((lastAt - firstAt) / 1000).toFixed(1)} s; answers by status ${JSON.stringify(stats.byStatus)}`,
    );
  } finally {
    await teardownCase({ producer, redis, emulator, db, prefix });
  }
}
