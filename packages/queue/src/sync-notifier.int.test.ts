import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createLogger } from '@rolelink/runtime';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { QueueName } from '@rolelink/contracts';
import { waitFor } from '../../../test/support/until';
import { Consumer } from './consumer';
import { producerConnection, workerConnection } from './connection';
import { enqueueLinkSync } from './role-sync';
import { Producer } from './producer';
import { SyncNotifier } from './sync-notifier';

/**
 * Counts the role-sync enqueues under `prefix` from the queue's events stream: BullMQ's add script
 * writes exactly one `added` (a new job) or `deduplicated`/`duplicated` (an add that rode a waiting
 * job) entry per add. Read after the adds were answered, so every one of them is in the stream.
 * (Redis MONITOR counted the scripts before, but ioredis can mistake another client's command for
 * MONITOR's reply and stall the connection: it failed a CI run once.)
 */
async function watchEnqueues(prefix: string): Promise<{ count(): Promise<number>; stop(): void }> {
  const redis = new Redis(REDIS_URL);
  const stream = `${prefix}:role-sync:events`;
  const [last] = await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
  const after = last ? `(${last[0]}` : '-';
  return {
    async count() {
      const entries = await redis.xrange(stream, after, '+');
      return entries.filter(([, fields]) =>
        ['added', 'deduplicated', 'duplicated'].includes(fields[fields.indexOf('event') + 1] ?? ''),
      ).length;
    },
    stop: () => redis.disconnect(),
  };
}

describe('SyncNotifier', () => {
  const prefix = testQueuePrefix();
  const redis = producerConnection(REDIS_URL);
  const notifier = new SyncNotifier(redis, prefix, createLogger('test', 'error'));

  afterAll(async () => {
    await notifier.close();
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('queues two sync requests for a link however many writes ask at once, and one per link', async () => {
    await notifier.notify('1'); // connected and the script loaded: the counts below are the batch's alone
    const enqueues = await watchEnqueues(prefix);
    try {
      const asks = [...Array.from({ length: 20 }, (_, i) => notifier.notify('7', `req-${i}`)), notifier.notify('8')];
      await expect(Promise.all(asks)).resolves.toEqual(asks.map(() => true));
      // Link 7: the first ask at once, the 19 others share the next; link 8: its own.
      expect(await enqueues.count()).toBe(3);
      // The shared request carries the first asker's request id to the worker's log lines.
      const waiting = await notifier['producer'].queue.getWaiting();
      const data = waiting.map((j) => j.data as { linkId: string; requestId?: string });
      expect(data.filter((d) => d.linkId === '7')).toEqual([{ linkId: '7', requestId: 'req-0' }]);
    } finally {
      enqueues.stop();
    }
  });

  it('never answers a write with a request sent before it asked: an ask during one in flight gets the next', async () => {
    const enqueues = await watchEnqueues(prefix);
    try {
      const first = notifier.notify('9');
      await new Promise((r) => setImmediate(r)); // the first enqueue is on its way
      const second = notifier.notify('9');
      const third = notifier.notify('9');
      await expect(Promise.all([first, second, third])).resolves.toEqual([true, true, true]);
      expect(await enqueues.count()).toBe(2);
    } finally {
      enqueues.stop();
    }
  });

  it('settles the requests nobody waited for: settled() resolves once each one asked for is queued', async () => {
    const enqueues = await watchEnqueues(prefix);
    try {
      // As a single-user write asks: not awaited. The second ask of link 10 is due 50 ms after the first.
      void notifier.notify('10');
      void notifier.notify('10');
      void notifier.notify('11');
      await notifier.settled();
      expect(await enqueues.count()).toBe(3);
      const waiting = await notifier['producer'].queue.getWaiting();
      expect(
        waiting
          .map((j) => (j.data as { linkId: string }).linkId)
          .filter((id) => id === '10' || id === '11')
          .sort(),
      ).toEqual(['10', '11']);
    } finally {
      enqueues.stop();
    }
  });

  it("gives every write a pass that sees it: a request arriving while the link's job runs is kept for after it", async () => {
    // The bot's contract with the notifier, under a stream of writes: a pass reads how far the list got
    // ("wanted") when it starts and marks that done when it ends; a request that meets the link's job
    // running is kept by BullMQ's keepLastIfActive for after that job (jobDedup's `wanted` rule), and
    // one that meets it waiting rides it. Any request lost on the way leaves a link behind for good
    // here: no sweeper runs. Writes come 0-30 ms apart, so they land before, during and after the
    // spacing wait and the jobs (0-20 ms each) alike; four links at once, four jobs at a time.
    const wanted = new Map<string, number>();
    const done = new Map<string, number>();
    let passes = 0;
    const worker = workerConnection(REDIS_URL);
    const asking = producerConnection(REDIS_URL);
    const followUps = new Producer(QueueName.roleSync, asking, prefix);
    const consumer = new Consumer(
      QueueName.roleSync,
      {
        async sync({ linkId }) {
          const seen = wanted.get(linkId) ?? 0;
          await sleep(Math.random() * 20);
          done.set(linkId, Math.max(done.get(linkId) ?? 0, seen));
          passes++;
          // As the bot's pass: writes journaled while it ran are the next pass's, asked from inside the job.
          if ((wanted.get(linkId) ?? 0) > seen) await enqueueLinkSync(followUps, linkId);
          return 'done';
        },
        reconcile: () => Promise.resolve('done'),
        'link-purge': () => Promise.resolve('done'),
      },
      { connection: worker, prefix, concurrency: 4 },
    );
    try {
      const links = ['21', '22', '23', '24'];
      await Promise.all(
        links.map(async (linkId) => {
          for (let i = 0; i < 80; i++) {
            wanted.set(linkId, (wanted.get(linkId) ?? 0) + 1); // the write commits, then asks
            void notifier.notify(linkId);
            await sleep(Math.random() * 30);
          }
        }),
      );
      await notifier.settled();
      const behind = () =>
        links
          .filter((l) => (done.get(l) ?? 0) < wanted.get(l)!)
          .map((l) => `${l}: done ${done.get(l) ?? 0} of ${wanted.get(l)}`);
      // Waits while passes keep running; a lost request shows as a link behind with no pass coming.
      await waitFor(
        () => ({ behind: behind(), passes }),
        (v) => v.behind.length === 0,
        { what: 'every link synced to its last write', timeoutMs: 15_000, progress: (v) => v.passes },
      );
      expect(behind()).toEqual([]);
    } finally {
      await consumer.close();
      await followUps.close();
      asking.disconnect();
      worker.disconnect();
    }
  });
});
