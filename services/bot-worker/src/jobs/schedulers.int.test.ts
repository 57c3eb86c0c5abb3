import type { RedisClient } from '@rolelink/queue';
import { QueueName } from '@rolelink/contracts';
import { ensureSchedulers, Producer, scheduled, workerConnection, type SchedulerKeeper } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { ownRedis, type OwnRedis } from '../../../../test/support/own-redis';
import { waitFor } from '../../test/support/harness';

// The worker's job schedulers against a redis-server of this test's own that keeps nothing on disk:
// absent at start (the keeper retries, never throws), then killed and started empty (the keeper's 'ready'
// listener registers them again, with nobody calling it).

let redis: OwnRedis;
let client: RedisClient;
let keeper: SchedulerKeeper | undefined;
let syncs: Producer<typeof QueueName.roleSync>;
let notify: Producer<typeof QueueName.notify>;

beforeAll(async () => {
  redis = await ownRedis();
  client = workerConnection(redis.url, { maxRetriesPerRequest: 3 });
  syncs = new Producer(QueueName.roleSync, client, 'rlsched');
  notify = new Producer(QueueName.notify, client, 'rlsched');
});
afterAll(async () => {
  keeper?.stop();
  await Promise.allSettled([syncs.close(), notify.close()]);
  client.disconnect();
  await redis.kill();
});

/** The scheduler ids in Redis; none while Redis is away. */
const registeredIds = async (): Promise<string[]> => {
  const both = await Promise.all([syncs.queue.getJobSchedulers(), notify.queue.getJobSchedulers()]).catch(() => []);
  return both
    .flat()
    .map((s) => s.key)
    .sort();
};

describe('ensureSchedulers', () => {
  it('waits out a Redis absent at start, then registers them again after Redis restarts empty', async () => {
    const { logger, lines } = memoryLogger('bot-worker', 'info');
    let upserts = 0;
    const reconcile = scheduled(syncs, 'reconcile', 60_000)!;
    const schedulers = [
      { id: reconcile.id, upsert: () => reconcile.upsert().then(() => void upserts++) },
      scheduled(notify, 'notify-sweep', 5_000),
    ];
    // An interval of 0 or none is never scheduled (tests drive those jobs themselves).
    expect([scheduled(syncs, 'reconcile', 0), scheduled(notify, 'notify-sweep', null)]).toEqual([null, null]);
    keeper = ensureSchedulers({
      redis: client,
      schedulers,
      logger,
      backoff: { firstMs: 50, maxMs: 400, attemptMs: 500 },
    });

    // No Redis yet: the keeper does not throw, says not registered and logs its retries.
    await waitFor(
      () => lines.filter((l) => l.message === 'job schedulers not registered (Redis); retrying').length,
      (n) => n >= 2,
      { what: 'two retries while Redis is absent', timeoutMs: 60_000 },
    );
    expect(keeper.registered()).toBe(false);
    expect(upserts).toBe(0);

    await redis.start();
    await waitFor(() => keeper!.registered(), Boolean, {
      what: 'the schedulers registered once Redis is up',
      timeoutMs: 60_000,
    });
    expect(await registeredIds()).toEqual(['notify-sweep', 'reconcile']);
    const before = upserts;

    // SIGKILL, nothing on disk: the new Redis is empty, and the reconnect's 'ready' registers them again.
    await redis.kill();
    await redis.start();
    await waitFor(registeredIds, (ids) => ids.join() === 'notify-sweep,reconcile', {
      what: 'the schedulers back after Redis restarted empty',
      timeoutMs: 60_000,
    });
    expect(upserts).toBeGreaterThan(before);
    expect(keeper.registered()).toBe(true);
  }, 180_000);
});
