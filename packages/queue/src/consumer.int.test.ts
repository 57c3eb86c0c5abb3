import { once } from 'node:events';
import type { Job } from 'bullmq';
import { QueueName, type JobData } from '@rolelink/contracts';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { producerConnection, workerConnection } from './connection';
import { Consumer, type JobHandlers } from './consumer';
import { Producer } from './producer';
import { enqueueLinkSync } from './role-sync';

type RoleSync = typeof QueueName.roleSync;

describe('typed queues', () => {
  const prefix = testQueuePrefix();
  const producerRedis = producerConnection(REDIS_URL);
  const workerRedis = workerConnection(REDIS_URL);
  const sync = new Producer(QueueName.roleSync, producerRedis, prefix);

  afterAll(async () => {
    await sync.close();
    producerRedis.disconnect();
    workerRedis.disconnect();
    await dropPrefix(prefix);
  });

  it('gives each job to the handler of its name with its payload parsed by the catalog, and fails the others', async () => {
    const seen: JobData<RoleSync, 'sync'>[] = [];
    const handlers: JobHandlers<RoleSync> = {
      sync: (data) => {
        seen.push(data);
        return Promise.resolve();
      },
      reconcile: () => Promise.resolve(null),
    };
    const consumer = new Consumer(QueueName.roleSync, handlers, { connection: workerRedis, prefix, concurrency: 1 });
    try {
      const completed = once(consumer.worker, 'completed');
      // Added past the producer's parse, as an older release might have: the consumer parses it again.
      await sync.queue.add('sync', { linkId: '42', extra: 'stripped' });
      await completed;
      expect(seen).toEqual([{ linkId: '42' }]);

      const failures: string[] = [];
      consumer.worker.on('failed', (_job, err) => failures.push(err.message));
      const twoFailed = new Promise<void>((resolve) =>
        consumer.worker.on('failed', () => failures.length === 2 && resolve()),
      );
      await sync.queue.add('sync', { linkId: 'not-a-number' });
      await sync.queue.add('no-such-job', {});
      await twoFailed;
      expect(failures[0]).toMatch(/linkId/);
      expect(failures[1]).toBe('unknown role-sync job no-such-job');
      expect(seen).toHaveLength(1);
    } finally {
      await consumer.close();
    }
  });

  it('deduplicates by the catalog rule the producer names: one waiting sync per link, retries apart', async () => {
    await enqueueLinkSync(sync, '7');
    await enqueueLinkSync(sync, '7');
    await sync.add('sync', { linkId: '7' }, { delay: 5_000, dedup: 'retry' });
    await sync.add('sync', { linkId: '7' }, { delay: 5_000, dedup: 'retry' });
    const jobs: Job[] = await sync.queue.getJobs(['waiting', 'delayed']);
    expect(jobs.map((j) => j.opts.deduplication?.id).sort()).toEqual(['link-7', 'retry-link-7']);
    expect(jobs.find((j) => j.opts.deduplication?.id === 'retry-link-7')?.opts.deduplication).toEqual({
      id: 'retry-link-7',
      ttl: 5_000,
    });
  });
});
