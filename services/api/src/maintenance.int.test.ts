import { Queue } from 'bullmq';
import { QueueName } from '@rolelink/contracts';
import { workerConnection } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { listOf, seedLink, userIds } from '../../../test/support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { waitFor } from '../../bot-worker/test/support/harness';
import { ExpirySweeper } from './expiry-sweeper';
import type { PeriodicJobs } from '@rolelink/queue';
import { startMaintenance } from './maintenance';

// Two API replicas on one Redis: the sweeps are jobs of BullMQ schedulers, so together they
// sweep once per interval, where a timer per process swept once per replica.
let db: TestDb;
const prefix = testQueuePrefix();
const connections = [workerConnection(REDIS_URL), workerConnection(REDIS_URL)];
const notifierRedis = producerConnection(REDIS_URL);
let replicas: PeriodicJobs[] = [];

beforeAll(async () => (db = await createTestDb()));
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await dropPrefix(prefix);
  await Promise.all([...connections, notifierRedis].map((c) => c.quit()));
  await db.close();
});

it('two replicas register each scheduler once and run each scheduled sweep once, the expiry sweep removing what is due', async () => {
  const sync = new SyncNotifier(notifierRedis, prefix, silentLogger());
  const link = await seedLink(db);
  const [due, kept] = userIds(2);
  await db.pool.query(
    `INSERT INTO link_user (link_id, user_id, expires_at) SELECT $1, u - 9223372036854775808, e FROM unnest($2::numeric[], $3::timestamptz[]) AS x(u, e)`,
    [link.linkId, [due, kept], [new Date(Date.now() - 1_000), null]],
  );
  await db.pool.query('UPDATE role_link SET user_count = 2 WHERE id = $1', [link.linkId]);

  let sweeps = 0; // expiry sweeps run, by either replica
  const expiries = new ExpirySweeper({ pool: db.pool, sync, logger: silentLogger() });
  const counted = { sweepOnce: () => (sweeps++, expiries.sweepOnce()) };
  replicas = connections.map((connection) =>
    startMaintenance({
      connection,
      prefix,
      logger: silentLogger(),
      pool: db.pool,
      sync,
      expiries: counted,
      sweepEveryMs: 60_000,
      expirySweepEveryMs: 300,
    }),
  );
  await Promise.all(replicas.map((r) => r.keeper.firstRegistration));

  const queue = new Queue(QueueName.maintenance, { connection: notifierRedis, prefix });
  try {
    // One scheduler per sweep of the API's tables, whatever the replicas.
    expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual([
      'expiry-sweep',
      'idempotency-sweep',
      'outbox-sweep',
      'upload-sweep',
    ]);
    await waitFor(
      () => listOf(db, link.linkId),
      (ids) => ids.join() === kept,
      { what: 'the due membership removed by a scheduled sweep', timeoutMs: 60_000 },
    );
    // Each completed expiry-sweep job ran one sweep on one replica: as many sweeps as jobs, not twice as many.
    const completed = async () => (await queue.getJobs(['completed'])).filter((j) => j.name === 'expiry-sweep').length;
    await waitFor(completed, (n) => n >= 4, {
      what: 'four scheduled expiry sweeps',
      timeoutMs: 60_000,
      progress: (n) => n,
    });
    await Promise.all(replicas.map((r) => r.close()));
    expect(sweeps).toBe(await completed());
  } finally {
    await queue.close();
  }
}, 180_000);
