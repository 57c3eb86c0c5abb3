// `pnpm bench sync incremental [--sizes 100000,30000000] [--changes 200]`: single adds and removals on a
// premium link whose whole list is already applied (list and applied records generated in SQL, as the
// diff bench does), written through the API's own repository functions at random moments, each timed
// until the emulator shows it. Prints p95/p99 beside the goals and the PostgreSQL rows read and worker
// CPU per change at each size (goal: independent of the list's size).
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { QueueName } from '@rolelink/contracts';
import { toStored } from '@rolelink/db/client';
import { addUser, removeUser } from '@rolelink/db/list';
import { startEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection, type RedisClient } from '@rolelink/queue';
import { ROLE, guildSeed } from '../services/bot-worker/test/support/harness';
import {
  percentile,
  REDIS_URL,
  scratchDb,
  sleep,
  spawnWorkers,
  stopWorkers,
  verdict,
  waitFor,
  type ScratchDb,
  workerEnv,
  teardownCase,
} from './sync-support';

export const GUILD = '700000000000000001';
export const BASE = 100000000000000000n;
export const PREMIUM_LIMIT = 30_000_000;

/** List of n ids (BASE + 1 … BASE + n), all applied, journal consumed up to the link's sequence. */
export async function appliedLink(db: ScratchDb, n: number): Promise<string> {
  await db.pool.query(`INSERT INTO guild (id, plan, updated_at) VALUES (${GUILD}, 'premium', now())`);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO role_link (guild_id, role_id, token_hash, token_ciphertext, plugin_url, member_mode, first_list_at, user_count,
                            applied_count, sync_wanted_seq, sync_done_seq, updated_at)
     VALUES (${GUILD}, ${ROLE.linked}, '\\x01', '\\x01', 'https://plugin.example.com', 'keep', now(), ${n}, ${n}, 1, 1, now()) RETURNING id::text`,
  );
  const link = rows[0]!.id;
  for (const sql of [
    'ALTER TABLE link_user DROP CONSTRAINT link_user_pkey',
    'ALTER TABLE applied_member DROP CONSTRAINT applied_member_pkey',
    `INSERT INTO link_user (link_id, user_id) SELECT ${link}, ${toStored(`${BASE} + g`)} FROM generate_series(1, ${n}) g`,
    `INSERT INTO applied_member (link_id, user_id, outcome, updated_at) SELECT ${link}, ${toStored(`${BASE} + g`)}, 'applied', now() FROM generate_series(1, ${n}) g`,
    `SET maintenance_work_mem = '512MB'`,
    'ALTER TABLE link_user ADD CONSTRAINT link_user_pkey PRIMARY KEY (link_id, user_id)',
    'ALTER TABLE applied_member ADD CONSTRAINT applied_member_pkey PRIMARY KEY (link_id, user_id)',
    'VACUUM ANALYZE link_user',
    'VACUUM ANALYZE applied_member',
    // The first walk is done: the worker's state says so (journal consumed to sequence 1, nothing held).
    `INSERT INTO link_sync_state (link_id, journal_seq, applied_limit, applied_cutoff) VALUES (${link}, 1, ${PREMIUM_LIMIT}, NULL)`,
  ]) {
    await db.pool.query(sql);
  }
  return link;
}

/** Index entries and heap rows PostgreSQL returned for the sync tables (cumulative statistics). */
async function rowsRead(db: ScratchDb): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname IN ('link_user', 'applied_member', 'list_change', 'role_link', 'link_sync_state', 'guild'))
          + (SELECT COALESCE(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE relname IN ('link_user', 'applied_member', 'list_change', 'role_link', 'link_sync_state', 'guild')) AS n`,
  );
  return Number(rows[0]!.n);
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
}

export async function benchIncremental(out: (s: string) => void, sizes: number[], changes: number): Promise<void> {
  for (const size of sizes) {
    // Every add must stay inside the synced set: at the premium limit itself, an add of a new highest id
    // is held (lowest-N), which is right but would never reach the platform. Such lists are `changes` short.
    const n = Math.min(size, PREMIUM_LIMIT - changes);
    const adds = Array.from({ length: changes }, (_, i) => (BASE + BigInt(n) + 1n + BigInt(i)).toString());
    const stride = Math.max(1, Math.floor(n / (changes + 1)));
    const removes = Array.from({ length: changes }, (_, i) => (BASE + BigInt((i + 1) * stride)).toString());
    const emulator = await startEmulator({
      port: 0,
      roleBucket: { limit: 10, windowMs: 1_000 },
      globalPerSecond: 50,
      seed: {
        guilds: [
          {
            ...guildSeed(GUILD, 0),
            members: [
              ...adds.map((userId) => ({ userId, roles: [] })),
              ...removes.map((userId) => ({ userId, roles: [ROLE.linked] })),
            ],
          },
        ],
      },
    });
    const db = await scratchDb(`incr${n}`);
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
      // Warm-up: the worker's start-up and the bucket's discovery are not part of the figure.
      await removeUser(db.pool, link, (BASE + 1n).toString());
      await enqueueLinkSync(producer, link);
      await waitFor(
        () => !(emulator.state.memberRoles(GUILD, (BASE + 1n).toString()) ?? []).includes(ROLE.linked),
        60_000,
      ).catch(() => undefined);
      await sleep(11_000); // statistics of idle backends are flushed within 10 s
      const reads0 = await rowsRead(db);
      const cpu0 = cpuMs(worker!.pid!);

      const order = [
        ...adds.map((u) => ({ u, op: 'add' as const })),
        ...removes.map((u) => ({ u, op: 'remove' as const })),
      ].sort(() => Math.random() - 0.5);
      const times: number[] = [];
      for (const { u, op } of order) {
        await sleep(20 + Math.random() * 180); // a random moment
        const t0 = performance.now();
        if (op === 'add') await addUser(db.pool, link, u, PREMIUM_LIMIT);
        else await removeUser(db.pool, link, u);
        await enqueueLinkSync(producer, link);
        const has = () => (emulator.state.memberRoles(GUILD, u) ?? []).includes(ROLE.linked);
        await waitFor(() => (op === 'add' ? has() : !has()), 30_000);
        times.push(performance.now() - t0);
      }
      const cpu = cpuMs(worker!.pid!) - cpu0;
      await sleep(11_000);
      const reads = (await rowsRead(db)) - reads0;
      const journalLeft = Number(
        (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM list_change')).rows[0]!.n,
      );
      await stopWorkers([worker!]);

      times.sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      const p99 = percentile(times, 99);
      out(
        `### Incremental: ${changes} adds + ${changes} removals at random moments on a premium link with ${n.toLocaleString('en-US')} listed and applied users`,
      );
      out(
        `- write → role changed in the emulator: p50 ${percentile(times, 50).toFixed(0)} ms, **p95 ${p95.toFixed(0)} ms** (goal ≤ 2000 ms) ${verdict(p95 <= 2000)}, **p99 ${p99.toFixed(0)} ms** (goal ≤ 5000 ms) ${verdict(p99 <= 5000)}, max ${times[times.length - 1]!.toFixed(0)} ms`,
      );
      out(
        `- PostgreSQL rows read per change (API write + worker, index entries + heap rows of the sync tables): **${(reads / times.length).toFixed(1)}**; worker CPU per change **${(cpu / times.length).toFixed(2)} ms**`,
      );
      out(
        `- journal rows left after the run: ${journalLeft} (compacted); data generation ${(loadMs / 1000).toFixed(0)} s, not part of the figures`,
      );
    } finally {
      await teardownCase({ producer, redis, emulator, db, prefix });
    }
  }
}
