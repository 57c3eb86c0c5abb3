import { Queue } from 'bullmq';
import { QueueName } from '@rolelink/contracts';
import { journalLinkChange } from '@rolelink/db/list';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink } from '../../../test/support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { holdSweepLock, sweepLines } from '../../../test/support/sweeps';
import { sweepOutbox } from './outbox-sweep';

let db: TestDb;
const prefix = testQueuePrefix();
const redis = producerConnection(REDIS_URL);
beforeAll(async () => (db = await createTestDb()));
afterAll(async () => {
  await dropPrefix(prefix);
  redis.disconnect();
  await db.drop();
});

it('queues a sync for links marked and not synced under its own lock, one replica at a time, logging what it found', async () => {
  const wanting = await seedLink(db);
  const synced = await seedLink(db);
  for (const l of [wanting, synced]) await journalLinkChange(db.pool, l.linkId, 'walk');
  await db.pool.query('UPDATE role_link SET sync_done_seq = sync_wanted_seq WHERE id = $1', [synced.linkId]);
  const { logger, lines } = memoryLogger();
  const sync = new SyncNotifier(redis, prefix, logger);
  const queue = new Queue(QueueName.roleSync, { connection: redis, prefix });
  try {
    // Another API replica is in the middle of this sweep: this one queues nothing.
    const release = await holdSweepLock(db.pool, 'outbox');
    expect(await sweepOutbox(db.pool, sync, logger, 0)).toBe(0);
    expect(await queue.getWaitingCount()).toBe(0);
    await release();

    expect(await sweepOutbox(db.pool, sync, logger, 0)).toBe(1);
    expect((await queue.getJobs(['waiting'])).map((j): unknown => j.data)).toEqual([{ linkId: wanting.linkId }]);
    expect(sweepLines(lines, 'outbox sweep')).toEqual([{ wanting: 1, queued: 1 }]);
  } finally {
    await queue.close();
    await sync.close();
  }
});
