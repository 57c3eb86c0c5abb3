import type { ChildProcess } from 'node:child_process';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync, producerConnection, Producer } from '@rolelink/queue';
import { QueueName } from '@rolelink/contracts';
import { replaceList } from '@rolelink/db/list';
import type { RedisClient } from '@rolelink/queue';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { startWorkerProcess } from './support/worker-process';
import {
  GUILD_A,
  GUILD_B,
  ROLE,
  guildSeed,
  ids,
  insertLink,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

let emulator: RunningEmulator;
let db: TestDb;
let prefix: string;
let redis: RedisClient;
let producer: Producer<typeof QueueName.roleSync>;
const children = new Set<ChildProcess>();

function startWorker(extra: Record<string, string> = {}): ChildProcess {
  const child = startWorkerProcess(
    { databaseUrl: db.url, redisUrl: REDIS_URL, prefix, platformApiUrl: emulator.apiBase, botToken: emulator.botToken },
    extra,
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

// Each wait below fails after 30 s without progress; this cap only bounds a test that keeps moving
// slowly (worker start-ups and syncs at load 20 took a test past Jest's default 60 s).
const LONG_TEST_MS = 300_000;

const holders = (guild: string, role: string) => sorted(emulator.state.holders(guild, role));

// Each test gets a database, a queue prefix and an emulator of its own. Shared, an earlier test's links,
// queued jobs and guild outages outlived it, and a later test's worker worked them against an emulator that
// lacks their guilds: on a busy machine the second test ran past the drift poll's 30 s, so a worker it
// started read the first test's GUILD_B again, met 10004 and opened a guild outage, and the third test's
// GUILD_B link waited for the outage's probe a minute later (its first wait timed out; alone it passed).
beforeEach(async () => {
  db = await createTestDb();
  prefix = testQueuePrefix();
  redis = producerConnection(REDIS_URL);
  producer = new Producer(QueueName.roleSync, redis, prefix);
});

afterEach(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all([...children].map(exited));
  await emulator?.close();
  await producer?.close();
  redis?.disconnect();
  await db?.drop();
  await dropPrefix(prefix);
});

describe('bot worker processes', () => {
  it(
    'two worker processes share the guild buckets and the global limit without a single 429',
    async () => {
      emulator = await startEmulator({
        port: 0,
        roleBucket: { limit: 10, windowMs: 500 },
        globalPerSecond: 40,
        seed: { guilds: [guildSeed(GUILD_A, 120), guildSeed(GUILD_B, 60)] },
      });
      await upsertGuild(db.pool, GUILD_A, 'premium');
      await upsertGuild(db.pool, GUILD_B, 'premium');
      const lists = [
        { guild: GUILD_A, role: ROLE.linked, users: ids(70) },
        { guild: GUILD_A, role: ROLE.other, users: ids(50, 800000000000000060n) },
        { guild: GUILD_B, role: ROLE.linked, users: ids(60) },
      ];
      const links: string[] = [];
      for (const l of lists) {
        const link = await insertLink(db.pool, { guildId: l.guild, roleId: l.role });
        await writeList(db.pool, link, l.users);
        links.push(link);
      }
      // Each process is told the token may send 30/s; the platform allows 40/s. Two processes that did not
      // share the limit would send up to 60/s and meet global 429s; shared, they stay under 30/s together
      // (the 25% headroom keeps scheduling jitter on a busy CI machine from deciding the outcome).
      startWorker({ PLATFORM_GLOBAL_PER_SECOND: '30' });
      startWorker({ PLATFORM_GLOBAL_PER_SECOND: '30' });
      for (const link of links) await enqueueLinkSync(producer, link);

      for (const l of lists) {
        await waitFor(
          () => holders(l.guild, l.role),
          (h) => h.length === l.users.length,
          { what: `${l.users.length} holders`, timeoutMs: 30_000 },
        );
        expect(holders(l.guild, l.role)).toEqual(sorted(l.users));
      }
      const stats = emulator.state.stats();
      expect(stats.rateLimited).toEqual({ user: 0, global: 0, shared: 0 });
      expect(stats.invalidRequests).toBe(0);
      expect(stats.roleChangesApplied.added).toBe(180);
    },
    LONG_TEST_MS,
  );

  it(
    'loses nothing when a worker is killed with SIGKILL mid-sync, and stops cleanly on SIGTERM',
    async () => {
      emulator = await startEmulator({
        port: 0,
        roleBucket: { limit: 10, windowMs: 500 },
        globalPerSecond: 40,
        seed: { guilds: [guildSeed(GUILD_A, 200)] },
      });
      await upsertGuild(db.pool, GUILD_A, 'premium');
      const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.third });
      const list = ids(150, 800000000000000040n);
      await writeList(db.pool, link, list);

      const first = startWorker();
      await enqueueLinkSync(producer, link);
      await waitFor(
        () => holders(GUILD_A, ROLE.third).length,
        (n) => n >= 30,
        { what: '30 holders', timeoutMs: 30_000 },
      );
      first.kill('SIGKILL');
      await exited(first);
      const atKill = holders(GUILD_A, ROLE.third).length;
      expect(atKill).toBeLessThan(list.length);

      const second = startWorker(); // takes over the stalled job once its lock expires
      await waitFor(
        () => holders(GUILD_A, ROLE.third).length,
        (n) => n >= atKill + 30,
        { what: 'progress after restart', timeoutMs: 30_000 },
      );
      second.kill('SIGTERM');
      expect(await exited(second)).toEqual({ code: 0, signal: null });

      startWorker();
      await enqueueLinkSync(producer, link); // what the API's outbox sweeper does for a link still behind
      await waitFor(
        () => holders(GUILD_A, ROLE.third),
        (h) => h.length === list.length,
        { what: 'the whole list', timeoutMs: 30_000 },
      );
      expect(holders(GUILD_A, ROLE.third)).toEqual(sorted(list));
      const applied = emulator.state.stats().roleChangesApplied;
      expect(applied.added).toBe(list.length);
      expect(applied.unchanged).toBeLessThanOrEqual(2); // at most the calls in flight at the kill are repeated
      expect(emulator.state.stats().rateLimited.user).toBe(0);
    },
    LONG_TEST_MS,
  );

  it(
    'applies a journaled replace exactly once in effect across a SIGKILL mid-batch and a Redis wipe',
    async () => {
      emulator = await startEmulator({
        port: 0,
        roleBucket: { limit: 10, windowMs: 500 },
        globalPerSecond: 40,
        seed: { guilds: [guildSeed(GUILD_B, 200)] },
      });
      await upsertGuild(db.pool, GUILD_B, 'premium');
      const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.other });
      const first = ids(20);
      await writeList(db.pool, link, first);
      const worker = startWorker();
      await enqueueLinkSync(producer, link);
      await waitFor(
        () => holders(GUILD_B, ROLE.other).length,
        (n) => n === 20,
        { what: 'the first list', timeoutMs: 30_000 },
      );

      // 5 removed (below the shrink hold), 150 added: journaled per user under one sequence (one batch).
      const next = [...first.slice(5), ...ids(150, 800000000000000040n)];
      expect(
        await replaceList(db.pool, { linkId: link, source: { kind: 'ids', ids: next }, storedLimit: 100_000 }),
      ).toMatchObject({ kind: 'replaced' });
      await enqueueLinkSync(producer, link);
      await waitFor(
        () => holders(GUILD_B, ROLE.other).length,
        (n) => n >= 40,
        { what: 'the batch under way', timeoutMs: 30_000 },
      );
      worker.kill('SIGKILL');
      await exited(worker);
      expect(holders(GUILD_B, ROLE.other).length).toBeLessThan(next.length);
      await dropPrefix(prefix); // Redis loses the job and the limiter's state; the journal is in PostgreSQL

      startWorker();
      await enqueueLinkSync(producer, link); // what the API's outbox sweeper does for a link still behind
      await waitFor(
        () => holders(GUILD_B, ROLE.other),
        (h) => h.length === next.length && !h.includes(first[0]!),
        { what: 'the whole replace', timeoutMs: 40_000 },
      );
      expect(holders(GUILD_B, ROLE.other)).toEqual(sorted(next));
      const calls = emulator.state.audit.list(GUILD_B).filter((e) => e.roleId === ROLE.other);
      expect(calls.filter((e) => e.changed && e.action === 'member_role_add')).toHaveLength(20 + 150);
      expect(calls.filter((e) => e.changed && e.action === 'member_role_remove')).toHaveLength(5);
      expect(calls.filter((e) => !e.changed).length).toBeLessThanOrEqual(4); // at most the calls in flight at the kill are repeated
      await waitFor(
        async () =>
          (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM list_change WHERE link_id = $1', [link]))
            .rows[0]!.n,
        (n) => n === 0,
        { what: 'the journal compacted' },
      );
    },
    LONG_TEST_MS,
  );
});
