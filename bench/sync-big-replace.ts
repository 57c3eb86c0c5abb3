// `pnpm bench sync big-replace [--users=30000000] [--changes=1000]`: the sync engine's third figure, "a PUT of
// 100,000 over a 30M list with 1% changed". A PUT carries at most 100,000 IDs and replaces the whole
// list, so over a 30M list it would remove almost all of it; the figure is read as what it means
// by it: the whole 30M list replaced through the chunked upload's commit with 1% of 100,000 = 1,000 IDs
// changed (500 removed, 500 added). That is the journal's path for a replace: the commit computes the
// diff once, in SQL, and journals it per user (≤ 10,000 changed, list-replace.repo.ts), so the worker
// consumes 1,000 journal entries and does not walk the 30M list.
//
// A premium link whose list and applied records are generated in SQL (as `incremental` does), the new
// list staged in SQL and committed with the commit's own `replaceList`, then enqueued as the API does.
// Timed from the commit's answer: until the emulator receives the worker's first platform call, and
// until all the changes are applied; printed beside the bucket rate and the least time the bucket
// allows (changes ÷ rate).
import { randomBytes } from 'node:crypto';
import { QueueName } from '@rolelink/contracts';
import { removeUser, replaceList } from '@rolelink/db/list';
import { startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection, type RedisClient } from '@rolelink/queue';
import { guildSeed, ROLE } from '../services/bot-worker/test/support/harness';
import { appliedLink, BASE, GUILD, PREMIUM_LIMIT } from './sync-incremental';
import {
  REDIS_URL,
  scratchDb,
  sleep,
  spawnWorkers,
  stagedUpload,
  stopWorkers,
  verdict,
  waitFor,
  workerEnv,
  teardownCase,
} from './sync-support';

/** The single-change goal (p95 ≤ 2 s): the first call of a replace should come as soon. */
const FIRST_CALL_GOAL_MS = 2_000;
/** As `pnpm bench sync rate`: the changes go out at ≥ 0.9 of the bucket's rate. */
const RATE_SHARE_GOAL = 0.9;

export async function benchBigReplace(out: (s: string) => void, size: number, changes: number): Promise<void> {
  const n = Math.min(size, PREMIUM_LIMIT);
  const half = Math.floor(changes / 2);
  // Removals spread over the list (never BASE + 1, the warm-up's user); adds above it.
  const stride = Math.max(2, Math.floor(n / (half + 1)));
  const removes = Array.from({ length: half }, (_, i) => (BASE + BigInt((i + 1) * stride)).toString());
  const adds = Array.from({ length: half }, (_, i) => (BASE + BigInt(n + 1 + i)).toString());
  const warm = (BASE + 1n).toString();
  const emulator = await startEmulator({
    port: 0,
    roleBucket: { limit: 10, windowMs: 1_000 },
    globalPerSecond: 50,
    seed: {
      guilds: [
        {
          ...guildSeed(GUILD, 0),
          members: [warm, ...removes]
            .map((userId) => ({ userId, roles: [ROLE.linked] }))
            .concat(adds.map((userId) => ({ userId, roles: [] }))),
        },
      ],
    },
  });
  const bucket = emulator.state.config.roleBucket;
  const db = await scratchDb(`replace${n}`);
  const prefix = `rlbench-${randomBytes(4).toString('hex')}`;
  const redis: RedisClient = producerConnection(REDIS_URL);
  const producer = new Producer(QueueName.roleSync, redis, prefix);
  try {
    const loadStarted = performance.now();
    const link = await appliedLink(db, n);
    const loadMs = performance.now() - loadStarted;
    // Off: the applied records are generated in SQL, and the emulator does not know those users hold the role.
    const [worker] = spawnWorkers(
      1,
      workerEnv({ db, prefix, emulator }, { WORKER_CONCURRENCY: '4', RECONCILE_EVERY_MS: '0' }),
    );
    const has = (u: string) => (emulator.state.memberRoles(GUILD, u) ?? []).includes(ROLE.linked);
    // Warm-up: the worker's start-up and the bucket's discovery are not part of the figure.
    await removeUser(db.pool, link, warm);
    await enqueueLinkSync(producer, link);
    await waitFor(() => !has(warm), 60_000);

    // The new list: the current one (without the warm-up's user) less the removals, plus the adds.
    const stageStarted = performance.now();
    const upload = await stagedUpload(
      db,
      link,
      `SELECT ${BASE} + g AS user_id FROM generate_series(2, ${n}) g WHERE NOT (g % ${stride} = 0 AND g <= ${half * stride})
       UNION ALL SELECT ${BASE + BigInt(n)} + g FROM generate_series(1, ${half}) g`,
    );
    const stageMs = performance.now() - stageStarted;
    await sleep(2 * bucket.windowMs); // the bucket starts the figure full

    const changed = () => {
      const a = emulator.state.stats().roleChangesApplied;
      return a.added + a.removed;
    };
    const requests0 = emulator.state.stats().requests;
    const changed0 = changed();
    const audit0 = emulator.state.auditLog(GUILD).length;
    // Watches from before the commit, so a call made while the answer is on its way is not missed.
    let firstCallAt = 0;
    let watching = true;
    const watch = (async () => {
      while (watching && !firstCallAt) {
        if (emulator.state.stats().requests > requests0) firstCallAt = performance.now();
        else await sleep(1);
      }
    })();
    const commitStarted = performance.now();
    const committed = await replaceList(db.pool, {
      linkId: link,
      source: { kind: 'upload', uploadId: upload },
      storedLimit: PREMIUM_LIMIT,
    });
    if (committed.kind !== 'replaced') throw new Error(`replace not written: ${committed.kind}`);
    await enqueueLinkSync(producer, link);
    const answeredAt = performance.now(); // the commit's answer
    const commitMs = answeredAt - commitStarted;
    const bucketRate = bucket.limit / (bucket.windowMs / 1000);
    const leastS = changes / bucketRate;
    let timedOut = false;
    await waitFor(() => changed() - changed0 >= 2 * half, leastS * 3_000 + 120_000).catch(() => {
      timedOut = true;
    });
    const doneAt = performance.now();
    watching = false;
    await watch;
    const wrong = adds.filter((u) => !has(u)).length + removes.filter(has).length;
    const causes = emulator.state
      .auditLog(GUILD)
      .slice(audit0)
      .reduce<Record<string, number>>((acc, e) => {
        const cause = /\(([^)]*)\)$/.exec(e.reason ?? '')?.[1] ?? 'none';
        acc[cause] = (acc[cause] ?? 0) + 1;
        return acc;
      }, {});
    const stats = emulator.state.stats();
    // The batch is compacted once its last call is answered: give the worker a moment to record it.
    const journalRows = async () =>
      Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM list_change')).rows[0]!.n);
    let journalLeft = await journalRows();
    for (let i = 0; i < 50 && journalLeft > 0; i++) {
      await sleep(200);
      journalLeft = await journalRows();
    }
    await stopWorkers([worker!]);

    const firstCallMs = firstCallAt ? firstCallAt - answeredAt : NaN;
    const allS = (doneAt - answeredAt) / 1000;
    const share = leastS / allS;
    out(
      `### Big replace: commit of a ${(n - 1).toLocaleString('en-US')}-ID list over a premium link with ${n.toLocaleString('en-US')} listed and applied users, ${(2 * half).toLocaleString('en-US')} changed (${half} removed, ${half} added), role bucket ${bucket.limit} per ${bucket.windowMs / 1000} s`,
    );
    out(
      `- commit answered → worker's first platform call: **${firstCallMs.toFixed(0)} ms** (goal ≤ ${FIRST_CALL_GOAL_MS} ms, the single-change goal) ${verdict(firstCallMs <= FIRST_CALL_GOAL_MS)}${firstCallMs < 0 ? ' (the call came before the enqueue returned)' : ''}`,
    );
    out(
      `- commit answered → all ${(2 * half).toLocaleString('en-US')} changes applied: **${allS.toFixed(1)} s**${timedOut ? ' (timed out)' : ''}; bucket rate ${bucketRate}/s, least possible ${leastS.toFixed(0)} s (changes ÷ rate) → ${(100 * share).toFixed(1)}% of the bucket's rate (goal ≥ ${100 * RATE_SHARE_GOAL}%, as \`rate\`) ${verdict(!timedOut && share >= RATE_SHARE_GOAL)}`,
    );
    out(
      `- users in the wrong state afterwards: ${wrong}; role changes by audit-log cause: ${JSON.stringify(causes)}; requests ${stats.requests - requests0}, 429s ${stats.rateLimited.user} (scope user, whole run); journal rows left ${journalLeft} (compacted)`,
    );
    out(
      `- commit (replaceList over the staged upload, + enqueue) ${(commitMs / 1000).toFixed(1)} s; not part of the figures: list generation ${(loadMs / 1000).toFixed(0)} s, staging ${(stageMs / 1000).toFixed(0)} s`,
    );
  } finally {
    await teardownCase({ producer, redis, emulator, db, prefix });
  }
}
