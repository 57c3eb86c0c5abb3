import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { QueueName } from '@rolelink/contracts';
import { Producer } from '@rolelink/queue';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { startApi, type RunningApi } from '../../bench/support/api-process';
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
import { report } from './figures';
import { ownRedis, type OwnRedis } from '../support/own-redis';
import { redisGate, type RedisGate } from '../support/redis-gate';
import { freePort } from '../../scripts/free-port';

// Faults: Redis is killed (SIGKILL, nothing persisted, so every queued job is gone) and started
// again in the middle of 1,000 single adds and removes from 8 concurrent clients. The API, a bot worker and
// Redis are real processes; the platform is the emulator. PostgreSQL is the source of truth: every write
// the API acknowledged must be in the list, and the platform must end matching the list exactly — the
// outbox (`sync_wanted_seq`) and its sweeper re-enqueue what Redis forgot.
// Before that, Redis is also killed while the worker is starting (its first connection open): the worker
// keeps starting (/healthz 200, /readyz 503 until its job schedulers are registered), and once Redis is
// back it registers them. After the restart in the middle of the writes (an empty Redis) they are back too.

const WRITES = 1_000;
const CLIENTS = 8;
const USERS_PER_CLIENT = 40;
// Late, so the last writes land while Redis is gone: only the outbox sweeper can then bring them to the platform.
const KILL_AT = 850;
const DOWN_MS = 2_000;

let db: TestDb;
let emulator: RunningEmulator;
let redis: OwnRedis;
let api: RunningApi;
let worker: ChildProcess;
let link: SeededLink;
let gate: RedisGate;

/** The worker's job schedulers in Redis (reconcile, notify sweep and retention, drift poll, link purge), or none while Redis is away. */
async function schedulerIds(url: string): Promise<string[]> {
  const connection = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  connection.on('error', () => undefined);
  const producers = [QueueName.roleSync, QueueName.notify, QueueName.drift].map(
    (q) => new Producer(q, connection, 'rlrel'),
  );
  try {
    const found = await Promise.all(producers.map((p) => p.queue.getJobSchedulers()));
    return found
      .flat()
      .map((s) => s.key)
      .sort();
  } catch {
    return [];
  } finally {
    await Promise.allSettled(producers.map((p) => p.close()));
    connection.disconnect();
  }
}
const SCHEDULERS = ['drift-poll', 'link-purge', 'notification-retention', 'notify-sweep', 'reconcile'].join();

const status = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    () => 0,
  );

beforeAll(async () => {
  redis = await ownRedis();
  await redis.start();
  db = await createTestDb();
  emulator = await startEmulator({
    port: 0,
    roleBucket: { limit: 20, windowMs: 500 },
    globalPerSecond: 50,
    seed: { guilds: [guildSeed(GUILD_A, CLIENTS * USERS_PER_CLIENT)] },
  });
  await upsertGuild(db.pool, GUILD_A, 'premium');
  link = await seedLink(db, { guildId: GUILD_A, roleId: ROLE.linked });
  const redisUrl = redis.url;

  // Redis dies during the worker's start-up: the worker reaches Redis through a gate that holds its first
  // connection (none of its bytes reach Redis), and Redis is SIGKILLed then. It keeps starting and serving
  // /healthz, not ready; ready once Redis is back.
  gate = await redisGate(redis.port);
  const workerPort = await freePort();
  const health = `http://127.0.0.1:${workerPort}`;
  worker = startWorkerProcess(
    {
      databaseUrl: db.url,
      redisUrl: gate.url,
      prefix: 'rlrel',
      platformApiUrl: emulator.apiBase,
      botToken: emulator.botToken,
    },
    { WORKER_PORT: String(workerPort) },
  );
  await gate.firstClient;
  await redis.kill();
  gate.open();
  await waitFor(
    () => status(`${health}/healthz`),
    (s) => s === 200,
    { what: 'the worker serving /healthz with Redis gone', timeoutMs: 120_000 },
  );
  expect(await status(`${health}/readyz`)).toBe(503);
  expect(worker.exitCode).toBeNull();
  await redis.start();
  await waitFor(
    () => status(`${health}/readyz`),
    (s) => s === 200,
    { what: 'the worker ready once Redis is back', timeoutMs: 120_000 },
  );
  expect((await schedulerIds(redisUrl)).join()).toBe(SCHEDULERS);

  // The sweeper every second: after Redis comes back, what it forgot is re-enqueued within grace + 1 s.
  api = await startApi({ DATABASE_URL: db.url, REDIS_URL: redisUrl, QUEUE_PREFIX: 'rlrel', SWEEP_EVERY_MS: '1000' });
}, 360_000);
afterAll(async () => {
  worker?.kill('SIGKILL');
  await gate?.close();
  await api?.stop();
  await redis?.kill();
  await emulator?.close();
  await db?.drop();
});

type Op = { user: string; add: boolean };

describe(`Redis killed during ${WRITES.toLocaleString('en-US')} writes from ${CLIENTS} clients`, () => {
  it('loses no acknowledged write, and the platform ends matching the list exactly', async () => {
    const members = ids(CLIENTS * USERS_PER_CLIENT);
    // Each client owns its users, so the order of one user's writes is the order its client sent them.
    const owned = Array.from({ length: CLIENTS }, (_, c) =>
      members.slice(c * USERS_PER_CLIENT, (c + 1) * USERS_PER_CLIENT),
    );
    let seed = 20261123;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const base = `${api.origin}/api/role-link/${link.guildId}/${link.roleId}/users`;
    const headers = { authorization: `Token ${link.token}` };
    /** Per user: the effect of its last acknowledged write, or 'unknown' when a later write got no clear answer. */
    const expected = new Map<string, boolean | 'unknown'>();
    const statuses = new Map<string, number>();
    let sent = 0;
    let acknowledged = 0;
    let killedAt = 0;
    let restartedAt = 0;
    let restart: Promise<void> | null = null;

    const client = async (mine: string[]): Promise<void> => {
      while (sent < WRITES) {
        const n = ++sent;
        if (n === KILL_AT) {
          killedAt = Date.now();
          restart = redis.kill().then(async () => {
            await new Promise((r) => setTimeout(r, DOWN_MS));
            await redis.start();
            restartedAt = Date.now();
          });
        }
        const op: Op = { user: mine[Math.floor(random() * mine.length)]!, add: random() < 0.6 };
        const status = await fetch(`${base}/${op.user}`, {
          method: op.add ? 'POST' : 'DELETE',
          headers,
          signal: AbortSignal.timeout(15_000),
        }).then(
          (r) => r.status,
          () => 0,
        );
        statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
        if (status === 200) {
          acknowledged++;
          expected.set(op.user, op.add);
        } else if (status === 0 || status >= 500) expected.set(op.user, 'unknown'); // may or may not have been written
      }
    };
    await Promise.all(owned.map(client));
    await (restart as Promise<void> | null); // assigned in the client callback above, which narrowing does not see
    const writesDone = Date.now();
    // Redis came back empty: the worker registered its schedulers again on the reconnect.
    const schedulers = await waitFor(
      () => schedulerIds(redis.url),
      (ids) => ids.join() === SCHEDULERS,
      { what: 'the job schedulers back after the restart', timeoutMs: 60_000 },
    ).catch(() => schedulerIds(redis.url));

    const list = new Set(await listOf(db, link.linkId));
    const lost = [...expected]
      .filter(([user, add]) => add !== 'unknown' && list.has(user) !== add)
      .map(([user]) => user);

    // The platform converges on the list: the worker drains what survived, the sweeper re-enqueues the rest.
    const want = sorted([...list]);
    const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));
    const final = await waitFor(holders, (h) => h.join() === want.join(), {
      what: 'the platform matching the list',
      timeoutMs: 90_000,
    }).catch(() => holders());
    const mismatched = final.filter((u) => !list.has(u)).length + want.filter((u) => !final.includes(u)).length;

    report([
      { scenario: 'redis-loss', name: 'writes sent', value: sent },
      { scenario: 'redis-loss', name: 'writes acknowledged (200)', value: acknowledged },
      { scenario: 'redis-loss', name: 'answers', value: [...statuses].map(([s, n]) => `${s}×${n}`).join(' ') },
      { scenario: 'redis-loss', name: 'Redis down for (ms)', value: restartedAt - killedAt },
      {
        scenario: 'redis-loss',
        name: 'acknowledged writes lost',
        value: lost.length,
        goal: '0',
        met: lost.length === 0,
      },
      {
        scenario: 'redis-loss',
        name: 'members not matching the list at the end (syncs lost)',
        value: mismatched,
        goal: '0',
        met: mismatched === 0,
      },
      {
        scenario: 'redis-loss',
        name: 'seconds from the last write to the platform matching',
        value: ((Date.now() - writesDone) / 1000).toFixed(1),
      },
      {
        scenario: 'redis-loss',
        name: 'job schedulers after the restart',
        value: schedulers.join(' '),
        goal: SCHEDULERS.replaceAll(',', ' '),
        met: schedulers.join() === SCHEDULERS,
      },
    ]);
    expect(killedAt).toBeGreaterThan(0);
    expect(acknowledged).toBeGreaterThan(WRITES / 2);
    expect(lost).toEqual([]);
    expect(final).toEqual(want);
    expect(schedulers.join()).toBe(SCHEDULERS);
    expect(worker.exitCode).toBeNull();
  }, 240_000);
});
