import { once } from 'node:events';
import type { Job } from 'bullmq';
import { QueueName, type JobData } from '@rolelink/contracts';
import { silentLogger } from '@rolelink/runtime';
import { backoffMs } from '@rolelink/wire-types/backoff';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { producerConnection, workerConnection } from './connection';
import { Consumer, type JobHandlers } from './consumer';
import { Producer } from './producer';
import { enqueueLinkSync } from './role-sync';
import { PluginJobs } from './plugin-jobs';
import { queueBackoff } from './retry-backoff';

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
      'link-purge': () => Promise.resolve(null),
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

  it('fails a payload that breaks its schema once, without the retries its attempts allow', async () => {
    const handlers: JobHandlers<RoleSync> = {
      sync: () => Promise.resolve(),
      reconcile: () => Promise.resolve(null),
      'link-purge': () => Promise.resolve(null),
    };
    const consumer = new Consumer(QueueName.roleSync, handlers, { connection: workerRedis, prefix, concurrency: 1 });
    try {
      const failed = once(consumer.worker, 'failed') as Promise<[Job, Error]>;
      const added = await sync.queue.add(
        'sync',
        { linkId: 'bad' },
        { attempts: 5, backoff: { type: 'fixed', delay: 1 } },
      );
      const [, err] = await failed;
      expect(err.name).toBe('UnrecoverableError');
      expect(err.message).toMatch(/linkId/);
      const job = await sync.queue.getJob(added.id!);
      expect(await job?.getState()).toBe('failed');
      expect(job?.attemptsMade).toBe(1);
    } finally {
      await consumer.close();
    }
  });

  it("spaces a failing plugin job's retries by the project's backoff rule, registered as BullMQ's custom strategy", async () => {
    const rule = queueBackoff[QueueName.pluginCalls]!;
    const plugins = new Producer(QueueName.pluginCalls, producerRedis, prefix);
    const pluginJobs = new PluginJobs(producerRedis, prefix, silentLogger());
    const consumer = new Consumer(
      QueueName.pluginCalls,
      {
        'delete-config': () => Promise.reject(new Error('plugin down')),
        'health-poll': () => Promise.resolve(),
        'health-check': () => Promise.resolve(),
        'event-deliver': () => Promise.resolve(),
        'event-sweep': () => Promise.resolve(),
        'event-retention': () => Promise.resolve(),
      },
      { connection: workerRedis, prefix, concurrency: 1 },
    );
    const failures: Job[] = [];
    const nextFailure = (count: number) =>
      new Promise<Job>((resolve) => {
        const check = () => failures.length >= count && resolve(failures[count - 1]!);
        consumer.worker.on('failed', check);
        check();
      });
    consumer.worker.on('failed', (job) => job && failures.push(job));
    try {
      await pluginJobs.deleteConfig({
        pluginUrl: 'https://p',
        guildId: '1',
        roleId: '2',
        tokenCiphertext: Buffer.from('t'),
      });
      const first = await nextFailure(1);
      const id = first.id!;
      // Each retry waits in the delayed set for the rule's wait of its step; promoting it skips the wait.
      for (const step of [0, 1]) {
        const delayed = await plugins.queue.getJob(id);
        expect(await delayed?.getState()).toBe('delayed');
        expect(delayed?.opts.backoff).toEqual({ type: 'custom' });
        expect(delayed?.delay).toBe(backoffMs(rule, step));
        await delayed!.promote();
        await nextFailure(step + 2);
      }
      const last = await plugins.queue.getJob(id);
      expect(await last?.getState()).toBe('failed');
      expect(last?.attemptsMade).toBe(3);
    } finally {
      await consumer.close();
      await pluginJobs.close();
      await plugins.close();
    }
  });
});
