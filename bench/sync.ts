// `pnpm bench sync [rate|global|saturated|latency|diff|incremental|busy-bucket|drift|drift-priority|big-replace|outage …] [--quick]`: the sync
// engine's figures, each printed beside the limit it is measured against, against the
// platform emulator with real PostgreSQL, Redis and worker processes. --quick shrinks every count tenfold
// (a smoke run, not the figures). With no scenario named, all run except big-replace (a 30M list generated
// twice and committed: 15 min or more), outage (an hour by default, bench/sync-outage.ts) and drift-priority
// (2,000 guilds, once per --changed count), which run only when named. --users=N sets the list size of
// busy-bucket (default 1,000,000), big-replace (default 30,000,000), outage (default 10,000) and, per guild,
// saturated (default 3,000: four first syncs asking 100/s of the 50/s global limit; --processes=N worker
// processes, default 1); drift-priority takes --guilds=N (default 2,000) and --changed=N,N (default 100,300).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { QueueName } from '@rolelink/contracts';
import { addUser } from '@rolelink/db/list';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, Producer, producerConnection, type RedisClient } from '@rolelink/queue';
import { guildSeed, ids, insertLink, ROLE, upsertGuild, writeList } from '../services/bot-worker/test/support/harness';
import { dropPrefix } from '../test/support/redis';
import { benchBigReplace } from './sync-big-replace';
import { benchBusyBucket } from './sync-busy-bucket';
import { benchDrift, benchDriftPriority } from './sync-drift';
import { benchIncremental } from './sync-incremental';
import { benchOutage } from './sync-outage';
import { benchSaturated } from './sync-saturated';
import {
  percentile,
  REDIS_URL,
  ROOT,
  scratchDb,
  sleep,
  spawnWorkers,
  stopWorkers,
  verdict,
  workerEnv,
  type ScratchDb,
} from './sync-support';

const quick = process.argv.includes('--quick');
const scale = (n: number) => (quick ? Math.max(1, Math.round(n / 10)) : n);
const lines: string[] = [];
const out = (s: string) => {
  console.log(s);
  lines.push(s);
};

type Setup = {
  emulator: RunningEmulator;
  db: ScratchDb;
  prefix: string;
  producer: Producer<typeof QueueName.roleSync>;
  redis: RedisClient;
};

async function setup(tag: string, emulatorOptions: Parameters<typeof startEmulator>[0]): Promise<Setup> {
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  const db = await scratchDb(tag);
  const prefix = `rlbench-${randomBytes(4).toString('hex')}`;
  const redis = producerConnection(REDIS_URL);
  return { emulator, db, prefix, redis, producer: new Producer(QueueName.roleSync, redis, prefix) };
}

async function teardown(s: Setup): Promise<void> {
  await s.producer.close();
  s.redis.disconnect();
  await s.emulator.close();
  await s.db.drop();
  await dropPrefix(s.prefix, REDIS_URL);
}

/** Polls the emulator until `target` role changes are applied: times of the first and the last. */
async function timeChanges(
  s: Setup,
  target: number,
  timeoutMs: number,
): Promise<{ firstAt: number; lastAt: number; done: number }> {
  let firstAt = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = s.emulator.state.stats().roleChangesApplied;
    const done = a.added + a.removed;
    if (done > 0 && !firstAt) firstAt = performance.now();
    if (done >= target) return { firstAt, lastAt: performance.now(), done };
    if (Date.now() > deadline) return { firstAt, lastAt: performance.now(), done };
    await sleep(10);
  }
}

async function benchRate(): Promise<void> {
  const n = scale(5_000);
  const bucket = { limit: 10, windowMs: 1_000 };
  const s = await setup('rate', {
    roleBucket: bucket,
    globalPerSecond: 50,
    seed: { guilds: [guildSeed('700000000000000001', n)] },
  });
  try {
    await upsertGuild(s.db.pool, '700000000000000001', 'premium');
    const link = await insertLink(s.db.pool, { guildId: '700000000000000001', roleId: ROLE.linked });
    await writeList(s.db.pool, link, ids(n));
    const workers = spawnWorkers(1, workerEnv(s, { WORKER_CONCURRENCY: '4' }));
    await enqueueLinkSync(s.producer, link);
    const t = await timeChanges(s, n, n * 250 + 60_000);
    await stopWorkers(workers);
    const stats = s.emulator.state.stats();
    const rate = (t.done - 1) / ((t.lastAt - t.firstAt) / 1000);
    const bucketRate = bucket.limit / (bucket.windowMs / 1000);
    const r429 = stats.rateLimited.user + stats.rateLimited.global + stats.rateLimited.shared;
    out(
      `### One guild, ${n.toLocaleString('en-US')} adds, role bucket ${bucket.limit} per ${bucket.windowMs / 1000} s`,
    );
    out(
      `- achieved ${rate.toFixed(2)} changes/s ÷ bucket ${bucketRate}/s = **${(rate / bucketRate).toFixed(3)}** (limit ≥ 0.9) ${verdict(rate / bucketRate >= 0.9)}`,
    );
    out(
      `- 429s ${r429} of ${stats.requests} requests = **${((100 * r429) / stats.requests).toFixed(2)}%** (limit ≤ 1%) ${verdict(r429 / stats.requests <= 0.01)}`,
    );
    out(
      `- applied ${t.done}/${n}, elapsed ${((t.lastAt - t.firstAt) / 1000).toFixed(1)} s; answers by status ${JSON.stringify(stats.byStatus)}`,
    );
  } finally {
    await teardown(s);
  }
}

async function benchGlobal(processes: number): Promise<void> {
  const guilds = 20;
  const perGuild = scale(1_000);
  const globalPerSecond = 50;
  const guildIds = Array.from({ length: guilds }, (_, i) => (700000000000000100n + BigInt(i)).toString());
  const s = await setup(`global${processes}`, {
    roleBucket: { limit: 10, windowMs: 1_000 },
    globalPerSecond,
    seed: { guilds: guildIds.map((g) => guildSeed(g, perGuild)) },
  });
  try {
    const links: string[] = [];
    for (const g of guildIds) {
      await upsertGuild(s.db.pool, g, 'premium');
      const link = await insertLink(s.db.pool, { guildId: g, roleId: ROLE.linked });
      await writeList(s.db.pool, link, ids(perGuild));
      links.push(link);
    }
    const workers = spawnWorkers(
      processes,
      workerEnv(s, { WORKER_CONCURRENCY: '16', PLATFORM_GLOBAL_PER_SECOND: String(globalPerSecond) }),
    );
    for (const l of links) await enqueueLinkSync(s.producer, l);
    const total = guilds * perGuild;
    const t = await timeChanges(s, total, total * 100 + 60_000);
    await stopWorkers(workers);
    const stats = s.emulator.state.stats();
    const rate = (t.done - 1) / ((t.lastAt - t.firstAt) / 1000);
    out(
      `### ${guilds} guilds × ${perGuild.toLocaleString('en-US')} changes, global ${globalPerSecond}/s, ${processes} worker process${processes > 1 ? 'es' : ''}`,
    );
    out(
      `- achieved ${rate.toFixed(2)} req/s ÷ global ${globalPerSecond}/s = **${(rate / globalPerSecond).toFixed(3)}** (limit ≥ 0.9) ${verdict(rate / globalPerSecond >= 0.9)}`,
    );
    out(
      `- 429s scope user: **${stats.rateLimited.user}** (limit 0 after discovery) ${verdict(stats.rateLimited.user === 0)}; global: ${stats.rateLimited.global}; requests ${stats.requests}`,
    );
    out(
      `- applied ${t.done}/${total}, elapsed ${((t.lastAt - t.firstAt) / 1000).toFixed(1)} s; answers by status ${JSON.stringify(stats.byStatus)}`,
    );
  } finally {
    await teardown(s);
  }
}

async function benchLatency(): Promise<void> {
  const samples = quick ? 10 : 40;
  const guild = '700000000000000001';
  const s = await setup('latency', {
    roleBucket: { limit: 10, windowMs: 1_000 },
    globalPerSecond: 50,
    seed: { guilds: [guildSeed(guild, samples + 1)] },
  });
  try {
    await upsertGuild(s.db.pool, guild, 'premium');
    const link = await insertLink(s.db.pool, { guildId: guild, roleId: ROLE.linked });
    await writeList(s.db.pool, link, []);
    const workers = spawnWorkers(1, workerEnv(s, { WORKER_CONCURRENCY: '4' }));
    const users = ids(samples + 1);
    const times: number[] = [];
    for (const [i, user] of users.entries()) {
      const t0 = performance.now();
      // POST /users/:userId's own write (insert, counters, outbox and journal in one statement), then enqueue.
      await addUser(s.db.pool, link, user, 30_000_000);
      await enqueueLinkSync(s.producer, link);
      const deadline = Date.now() + 30_000;
      while (!(s.emulator.state.memberRoles(guild, user) ?? []).includes(ROLE.linked) && Date.now() < deadline)
        await sleep(2);
      if (i > 0) times.push(performance.now() - t0); // the first sample includes the worker's start-up
      await sleep(250); // idle between posts
    }
    await stopWorkers(workers);
    times.sort((a, b) => a - b);
    const p95 = percentile(times, 95);
    out(
      `### Latency: one POST /users/:userId on an idle system → role visible in the emulator (${times.length} samples)`,
    );
    out(
      `- p50 ${percentile(times, 50).toFixed(0)} ms, **p95 ${p95.toFixed(0)} ms** (limit ≤ 2000 ms) ${verdict(p95 <= 2000)}, max ${times[times.length - 1]!.toFixed(0)} ms`,
    );
  } finally {
    await teardown(s);
  }
}

function benchDiff(): void {
  const n = scale(30_000_000);
  const json = execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench', 'sync-diff.ts'), String(n)],
    {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    },
  ).toString();
  const r = JSON.parse(json.trim().split('\n').pop()!) as {
    n: number;
    changed: number;
    loadMs: number;
    diffMs: number;
    diffs: number;
    ranges: number;
    maxRssMb: number;
  };
  out(
    `### Diff: ${r.n.toLocaleString('en-US')} desired against ${r.n.toLocaleString('en-US')} applied, 1% changed (diff only, no platform calls)`,
  );
  out(
    `- diff walk **${(r.diffMs / 1000).toFixed(1)} s** over ${r.ranges} ranges, ${r.diffs.toLocaleString('en-US')} differences found (expected ${r.changed.toLocaleString('en-US')})`,
  );
  out(
    `- peak RSS of the diffing process **${r.maxRssMb.toFixed(0)} MB** (limit ≤ 512 MB) ${verdict(r.maxRssMb <= 512)}`,
  );
  out(`- (data generation in PostgreSQL, not part of the figure: ${(r.loadMs / 1000).toFixed(0)} s)`);
}

export async function run(args: string[]): Promise<void> {
  const wanted = args.filter((a) => !a.startsWith('--'));
  const all = wanted.length === 0;
  const unknown = wanted.filter((w) => !SCENARIOS.includes(w));
  if (unknown.length) {
    console.error(
      `unknown scenario(s): ${unknown.join(', ')}\nusage: pnpm bench sync [${SCENARIOS.join('|')} …] [--quick] [--users=N] [--processes=N] [--adds=N] [--changes=N] [--sizes=N,N] [--guilds=N,N] [--minutes=N] [--no-return]\n(no scenario: all but big-replace and outage)`,
    );
    process.exit(2);
  }
  out(`## Sync engine benchmark (${new Date().toISOString()}${quick ? ', --quick' : ''})`);
  out(`Command: \`${['pnpm bench sync', ...args].join(' ')}\``);
  if (all || wanted.includes('rate')) await benchRate();
  if (all || wanted.includes('global')) {
    await benchGlobal(1);
    await benchGlobal(3);
  }
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  if (all || wanted.includes('saturated'))
    await benchSaturated(out, scale(Number(opt('users') ?? 3_000)), Number(opt('processes') ?? 1));
  if (all || wanted.includes('latency')) await benchLatency();
  if (all || wanted.includes('diff')) benchDiff();
  if (all || wanted.includes('incremental')) {
    const sizes = (opt('sizes') ?? '100000,30000000').split(',').map(Number).map(scale);
    await benchIncremental(out, sizes, scale(Number(opt('changes') ?? 200)));
  }
  if (all || wanted.includes('busy-bucket'))
    await benchBusyBucket(out, scale(Number(opt('users') ?? 1_000_000)), scale(Number(opt('adds') ?? 150)));
  if (all || wanted.includes('drift')) {
    const guilds = (opt('guilds') ?? '1,1000').split(',').map(Number).map(scale);
    await benchDrift(out, guilds, (n) => (quick ? 10 : n === 1 ? 40 : 60));
  }
  if (wanted.includes('drift-priority')) {
    const changed = (opt('changed') ?? '100,300').split(',').map(Number).map(scale);
    await benchDriftPriority(out, scale(Number(opt('guilds') ?? 2_000)), changed, quick ? 10 : 60);
  }
  if (wanted.includes('big-replace'))
    await benchBigReplace(out, scale(Number(opt('users') ?? 30_000_000)), scale(Number(opt('changes') ?? 1_000)));
  if (wanted.includes('outage'))
    await benchOutage(out, {
      users: scale(Number(opt('users') ?? 10_000)),
      minutes: Number(opt('minutes') ?? 60),
      measureReturn: !args.includes('--no-return'),
    });
}

const SCENARIOS = [
  'rate',
  'global',
  'saturated',
  'latency',
  'diff',
  'incremental',
  'busy-bucket',
  'drift',
  'drift-priority',
  'big-replace',
  'outage',
];
