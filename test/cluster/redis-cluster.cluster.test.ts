import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { QueueName, schedulerCatalog } from '@rolelink/contracts';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { Producer, producerConnection, type RedisClient } from '@rolelink/queue';
import { startApi, type RunningApi } from '../../bench/support/api-process';
import { freePort } from '../../scripts/free-port';
import { productionEnv, startService, type RunningService } from '../../scripts/service-process';
import { startWorkerProcess } from '../../services/bot-worker/test/support/worker-process';
import {
  GUILD_A,
  ROLE,
  guildSeed,
  ids,
  sorted,
  upsertGuild,
  waitFor,
} from '../../services/bot-worker/test/support/harness';
import { createTestDb, type TestDb } from '../support/db';
import { listOf, seedLink, type SeededLink } from '../support/fixtures';
import { ownCluster, type OwnCluster } from '../support/own-cluster';

// The whole system on a Redis Cluster of its own (three masters, one replica each; Debian's
// redis-server started here, never the shared Redis). The API, three bot workers and the platform emulator
// are real; REDIS_URL is redis+cluster://, QUEUE_PREFIX hash-tagged. Covered: a full sync (API → outbox →
// queue → workers → platform), the shared limiter under three workers, the job schedulers (a scheduled
// drift poll repairs a hand edit), every key in one slot, and a master failover in the middle of a sync.

const PREFIX = `{rlcluster-${randomBytes(4).toString('hex')}}`;
const MEMBERS = ids(400);
const FIRST = MEMBERS.slice(0, 240);
// Two more links in the same guild sync beside the first, so all three workers call the platform at once.
const OTHERS = [
  { roleId: ROLE.other, users: MEMBERS.slice(100, 260) },
  { roleId: ROLE.third, users: MEMBERS.slice(200, 360) },
];
// The second list drops 80 of the first and adds 120: the sync that runs through the failover.
const SECOND = [...FIRST.slice(80), ...MEMBERS.slice(240, 360)];
const WORKERS = 3;
// Each worker is told the token may send 30/s; the platform allows 40/s. Three workers not sharing one
// limit would send up to 90/s and meet global 429s; shared, they stay under 30/s together.
const TOLD_PER_SECOND = 30;
const PLATFORM_PER_SECOND = 40;

let cluster: OwnCluster;
let db: TestDb;
let emulator: RunningEmulator;
let api: RunningApi;
let broker: RunningService;
let link: SeededLink;
let others: SeededLink[];
let redis: RedisClient;
const workers: { child: ChildProcess; health: string }[] = [];

const holders = (roleId: string = ROLE.linked) => sorted(emulator.state.holders(GUILD_A, roleId));
const put = (list: string[], to: SeededLink = link) =>
  fetch(`${api.origin}/api/role-link/${to.guildId}/${to.roleId}/users`, {
    method: 'PUT',
    headers: { authorization: `Token ${to.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(list),
    signal: AbortSignal.timeout(30_000),
  });
const status = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    () => 0,
  );
/** A worker's own count of the role changes it made (its /metrics). */
async function roleChangesBy(health: string): Promise<number> {
  const text = await (await fetch(`${health}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('rolelink_role_changes_total') && l.includes('result="applied"'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}
/** The most role changes the platform saw in any one second. */
function peakPerSecond(): number {
  const at = botChanges()
    .map((e) => Date.parse(e.at))
    .sort((a, b) => a - b);
  let peak = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i]! - at[j]! >= 1000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}
/** Role changes the bot made on the platform, per user and action (an `unchanged` repeat is not one). */
const botChanges = () =>
  emulator.state.audit.list(GUILD_A).filter((e) => e.actorId === emulator.state.botUserId && e.changed);

/** The schedulers of the services this file starts (worker, API, broker; not the dashboard). */
const schedulersStartedHere = Object.entries(schedulerCatalog)
  .filter(([, s]) => s.owner !== 'dashboard')
  .map(([id]) => id)
  .sort();

async function schedulerIds(): Promise<string[]> {
  const producers = [
    QueueName.roleSync,
    QueueName.notify,
    QueueName.drift,
    QueueName.maintenance,
    QueueName.pluginCalls,
  ].map((q) => new Producer(q, redis, PREFIX));
  try {
    return (await Promise.all(producers.map((p) => p.queue.getJobSchedulers())))
      .flat()
      .map((s) => s.key)
      .sort();
  } finally {
    await Promise.allSettled(producers.map((p) => p.close()));
  }
}

beforeAll(async () => {
  cluster = await ownCluster();
  db = await createTestDb();
  emulator = await startEmulator({
    port: 0,
    roleBucket: { limit: 50, windowMs: 500 },
    globalPerSecond: PLATFORM_PER_SECOND,
    seed: { guilds: [guildSeed(GUILD_A, MEMBERS.length)] },
  });
  await upsertGuild(db.pool, GUILD_A, 'premium');
  // Trusted: the second list's 80 removals go through without the shrink hold's confirmation.
  link = await seedLink(db, { guildId: GUILD_A, roleId: ROLE.linked, trusted: true });
  others = [];
  for (const o of OTHERS) others.push(await seedLink(db, { guildId: GUILD_A, roleId: o.roleId }));
  // The sweeper every second: a sync job the failover loses is enqueued again from the outbox.
  api = await startApi({ DATABASE_URL: db.url, REDIS_URL: cluster.url, QUEUE_PREFIX: PREFIX, SWEEP_EVERY_MS: '1000' });
  for (let i = 0; i < WORKERS; i++) {
    const port = await freePort();
    const child = startWorkerProcess(
      {
        databaseUrl: db.url,
        redisUrl: cluster.url,
        prefix: PREFIX,
        platformApiUrl: emulator.apiBase,
        botToken: emulator.botToken,
      },
      // One job at a time each, so the three links' syncs run in three workers at once.
      {
        WORKER_PORT: String(port),
        WORKER_CONCURRENCY: '1',
        PLATFORM_GLOBAL_PER_SECOND: String(TOLD_PER_SECOND),
        DRIFT_POLL_EVERY_MS: '1000',
      },
    );
    workers.push({ child, health: `http://127.0.0.1:${port}` });
  }
  for (const w of workers)
    await waitFor(
      () => status(`${w.health}/readyz`),
      (s) => s === 200,
      { what: 'a worker ready on the cluster', timeoutMs: 120_000 },
    );
  // The plugin broker too, for its queue and job schedulers (no plugin is called here).
  broker = await startService('plugin-broker', 'tsx', productionEnv(db.url, cluster.url, PREFIX), {
    timeoutMs: 120_000,
  });
  redis = producerConnection(cluster.url, { enableOfflineQueue: true });
}, 360_000);

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await api?.stop();
  await broker?.stop();
  redis?.disconnect();
  await emulator?.close();
  await db?.drop();
  await cluster?.stop();
});

describe('the whole system on a Redis Cluster', () => {
  it('syncs first lists through three workers sharing one platform budget, with every key in one slot', async () => {
    const answers = await Promise.all([put(FIRST), ...OTHERS.map((o, i) => put(o.users, others[i]))]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const total = FIRST.length + OTHERS.reduce((n, o) => n + o.users.length, 0);
    await waitFor(
      () => emulator.state.stats().roleChangesApplied.added,
      (n) => n >= total,
      { what: 'the first lists on the platform', timeoutMs: 120_000 },
    );
    expect(holders()).toEqual(sorted(FIRST));
    for (const o of OTHERS) expect(holders(o.roleId)).toEqual(sorted(o.users));

    const stats = emulator.state.stats();
    expect(stats.rateLimited).toEqual({ user: 0, global: 0, shared: 0 });
    expect(stats.roleChangesApplied).toMatchObject({ added: total, removed: 0 });
    // All three workers made changes, yet together they never passed the platform's budget.
    const byWorker = await Promise.all(workers.map((w) => roleChangesBy(w.health)));
    console.log(
      `role changes by worker: ${byWorker.join(', ')}; peak ${peakPerSecond()} per second (each worker told ${TOLD_PER_SECOND}/s, platform ${PLATFORM_PER_SECOND}/s)`,
    );
    expect(byWorker.every((n) => n > 0)).toBe(true);
    expect(byWorker.reduce((a, b) => a + b, 0)).toBe(total);
    expect(peakPerSecond()).toBeLessThanOrEqual(PLATFORM_PER_SECOND);
    // Every key of this run (queues, limiter, locks) hashes to the prefix's one slot, on one master.
    const master = await cluster.masterPortOf(PREFIX);
    const slot = await cluster.slotOf(PREFIX);
    const counts = await Promise.all(
      cluster.nodes.map(async (n) => {
        const r = new Redis({ host: '127.0.0.1', port: n.port, maxRetriesPerRequest: 1 });
        try {
          const role = (await r.info('replication')).includes('role:master') ? 'master' : 'replica';
          if (role === 'replica') return { port: n.port, role, keys: 0, inSlot: 0 };
          // One transaction, so keys the workers write meanwhile cannot come between the two counts.
          const [[, keys], [, inSlot]] = (await r.multi().dbsize().cluster('COUNTKEYSINSLOT', slot).exec()) as [
            [null, number],
            [null, number],
          ];
          return { port: n.port, role, keys, inSlot };
        } finally {
          r.disconnect();
        }
      }),
    );
    const masters = counts.filter((c) => c.role === 'master');
    expect(masters).toHaveLength(3);
    const holder = masters.find((c) => c.port === master)!;
    expect(holder.keys).toBeGreaterThan(0);
    expect(holder.inSlot).toBe(holder.keys);
    expect(masters.filter((c) => c.port !== master).map((c) => c.keys)).toEqual([0, 0]);
  }, 240_000);

  it('keeps the job schedulers, and a scheduled drift poll repairs a hand edit', async () => {
    // The schedulers of every service started here, each once, on the cluster.
    const all = schedulersStartedHere;
    expect(
      await waitFor(schedulerIds, (ids) => ids.join() === all.join(), {
        what: 'every job scheduler',
        timeoutMs: 60_000,
      }),
    ).toEqual(all);

    const edited = FIRST[5]!;
    emulator.state.setMemberRoles(GUILD_A, edited, []);
    expect(holders()).not.toContain(edited);
    await waitFor(holders, (h) => h.includes(edited), {
      what: 'the drift poll re-adding the hand-removed role',
      timeoutMs: 120_000,
    });
    expect(holders()).toEqual(sorted(FIRST));
  }, 240_000);

  it('loses nothing and applies nothing twice when the master of the queues fails over mid-sync', async () => {
    const before = emulator.state.stats().roleChangesApplied;
    const changesBefore = botChanges().length;
    expect((await put(SECOND)).status).toBe(200);
    const want = sorted(SECOND);
    // Kill once the sync is under way (some of the second list applied, not all).
    await waitFor(
      () => botChanges().length - changesBefore,
      (n) => n >= 20,
      { what: 'the second sync under way', timeoutMs: 120_000 },
    );
    const { killed, promoted } = await cluster.killMasterOf(PREFIX);
    expect(promoted).not.toBe(killed);
    expect(holders()).not.toEqual(want);

    const final = await waitFor(holders, (h) => h.join() === want.join(), {
      what: 'the second list on the platform after the failover',
      timeoutMs: 180_000,
      progress: () => botChanges().length,
    }).catch(() => holders());
    expect(final).toEqual(want);
    expect(await listOf(db, link.linkId).then(sorted)).toEqual(want);

    // Each change exactly once: 80 removed, 120 added, and no user touched twice by the bot in this sync.
    const after = emulator.state.stats().roleChangesApplied;
    expect({ added: after.added - before.added, removed: after.removed - before.removed }).toEqual({
      added: 120,
      removed: 80,
    });
    const perUser = new Map<string, number>();
    for (const e of botChanges().slice(changesBefore))
      perUser.set(e.userId ?? '', (perUser.get(e.userId ?? '') ?? 0) + 1);
    expect([...perUser.values()].filter((n) => n > 1)).toEqual([]);
    expect(emulator.state.stats().rateLimited.global).toBe(0);

    // The promoted replica serves the schedulers and the workers carry on.
    expect(await schedulerIds()).toEqual(schedulersStartedHere);
    expect(broker.output()).not.toMatch(/CROSSSLOT/);
    for (const w of workers) {
      expect(w.child.exitCode).toBeNull();
      expect(
        await waitFor(
          () => status(`${w.health}/readyz`),
          (s) => s === 200,
          { what: 'a worker ready after the failover', timeoutMs: 60_000 },
        ),
      ).toBe(200);
    }
  }, 360_000);
});
