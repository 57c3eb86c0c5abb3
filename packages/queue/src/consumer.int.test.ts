import { once } from 'node:events';
import type { Job } from 'bullmq';
import { QueueName, type JobData } from '@rolelink/contracts';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { producerConnection, workerConnection } from './connection';
import { Consumer, type JobHandlers } from './consumer';
import { Producer } from './producer';
import { enqueueLinkSync } from './role-sync';

type PluginCalls = typeof QueueName.pluginCalls;

describe('typed queues', () => {
  const prefix = testQueuePrefix();
  const producerRedis = producerConnection(REDIS_URL);
  const workerRedis = workerConnection(REDIS_URL);
  const calls = new Producer(QueueName.pluginCalls, producerRedis, prefix);
  const sync = new Producer(QueueName.roleSync, producerRedis, prefix);

  afterAll(async () => {
    await calls.close();
    await sync.close();
    producerRedis.disconnect();
    workerRedis.disconnect();
    await dropPrefix(prefix);
  });

  it('gives each job to the handler of its name with its payload parsed by the catalog, and fails the others', async () => {
    const seen: JobData<PluginCalls, 'fetch-config'>[] = [];
    const idle = () => Promise.resolve(null);
    const handlers: JobHandlers<PluginCalls> = {
      'fetch-config': (data) => {
        seen.push(data);
        return Promise.resolve();
      },
      register: idle,
      'submit-config': idle,
      'delete-config': idle,
      'health-poll': idle,
      'health-check': idle,
    };
    const consumer = new Consumer(QueueName.pluginCalls, handlers, { connection: workerRedis, prefix, concurrency: 1 });
    try {
      const completed = once(consumer.worker, 'completed');
      // Added past the producer's parse, as an older release might have: the consumer applies the default.
      await calls.queue.add('fetch-config', { linkId: '42', deadline: 1 });
      await completed;
      expect(seen).toEqual([{ linkId: '42', refresh: false, deadline: 1 }]);

      const failures: string[] = [];
      consumer.worker.on('failed', (_job, err) => failures.push(err.message));
      const twoFailed = new Promise<void>((resolve) => consumer.worker.on('failed', () => failures.length === 2 && resolve()));
      await calls.queue.add('fetch-config', { linkId: 'not-a-number', deadline: 1 });
      await calls.queue.add('no-such-job', {});
      await twoFailed;
      expect(failures[0]).toMatch(/linkId/);
      expect(failures[1]).toBe('unknown plugin-calls job no-such-job');
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
    expect(jobs.find((j) => j.opts.deduplication?.id === 'retry-link-7')?.opts.deduplication).toEqual({ id: 'retry-link-7', ttl: 5_000 });
  });
});
