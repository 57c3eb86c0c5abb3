import { Redis } from 'ioredis';
import { createLogger } from '@rolelink/runtime';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { producerConnection } from './connection';
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
      return entries.filter(([, fields]) => ['added', 'deduplicated', 'duplicated'].includes(fields[fields.indexOf('event') + 1] ?? '')).length;
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
      // As a single-user write asks: not awaited. The second ask of link 10 is due 10 ms after the first.
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
});
