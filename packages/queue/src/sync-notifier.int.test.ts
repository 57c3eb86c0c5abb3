import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@rolelink/runtime';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { producerConnection } from './connection';
import { SyncNotifier } from './sync-notifier';

/**
 * Counts the role-sync enqueues (BullMQ's addJob script) sent under `prefix`, as Redis MONITOR sees them.
 * `count()` first sends a marker and waits to see it: Redis feeds a monitor in command order, so every
 * command sent before the marker has been counted by then (no waiting on the clock).
 */
async function watchEnqueues(prefix: string): Promise<{ count(): Promise<number>; stop(): void }> {
  const other = new Redis(REDIS_URL);
  const monitor = await other.monitor(); // a connection of its own, opened from `other`'s options
  let n = 0;
  const markers = new Map<string, () => void>();
  monitor.on('monitor', (_time: string, args: string[]) => {
    // addStandardJob runs as EVALSHA (or EVAL the first time) with the queue's keys among its arguments.
    if (/^eval/i.test(args[0] ?? '') && args.some((a) => a.startsWith(`${prefix}:role-sync:`))) n++;
    if (args[0]?.toLowerCase() === 'echo') markers.get(args[1] ?? '')?.();
  });
  return {
    async count() {
      const marker = randomUUID();
      const seen = new Promise<void>((resolve) => markers.set(marker, resolve));
      await other.echo(marker);
      await seen;
      return n;
    },
    stop: () => {
      monitor.disconnect();
      other.disconnect();
    },
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
});
