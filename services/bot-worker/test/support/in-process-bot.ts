import type { RedisClient } from '@rolelink/queue';
import { startEmulator, type EmulatorSeed, type RunningEmulator } from '@rolelink/platform-emulator';
import {
  applicationKey,
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
} from '@rolelink/platform-client';
import { workerConnection } from '@rolelink/queue';
import type { Logger, Metrics } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../../test/support/redis';
import { createBotWorker, type BotWorker } from '../../src/worker';
import type { BotWorkerOptions } from '../../src/worker-options';

export type InProcessBot = {
  emulator: RunningEmulator;
  db: TestDb;
  prefix: string;
  /** The worker's own connection (not its blocking one): what a test reads the worker's keys with. */
  redis: RedisClient;
  client: PlatformClient;
  bot: BotWorker;
  /** Between tests: the emulator emptied and seeded again, every guild, link and sync table truncated. */
  reset(seed: EmulatorSeed): Promise<void>;
  close(): Promise<void>;
};

/**
 * The bot worker in this process over a database and queue prefix of its own, against an emulator whose
 * limits let a test's few hundred changes through quickly; short slices so a test sees many of them.
 */
export async function startInProcessBot(o: {
  logger: Logger;
  concurrency: number;
  metrics?: Metrics;
  drift?: BotWorkerOptions['drift'];
  notifyBudget?: BotWorkerOptions['notifyBudget'];
  reconcileEveryMs?: number;
  /** The platform client's events, as main.ts wires them to metrics and logs. */
  clientEvents?: PlatformClientOptions['events'];
  /** Another harness's database and queue prefix (the broker's), to run the whole system on one; theirs to close. */
  shared?: { db: TestDb; prefix: string };
}): Promise<InProcessBot> {
  const emulator = await startEmulator({ port: 0, roleBucket: { limit: 50, windowMs: 1000 }, globalPerSecond: 200 });
  const db = o.shared?.db ?? (await createTestDb());
  const prefix = o.shared?.prefix ?? testQueuePrefix();
  const redis: RedisClient = workerConnection(REDIS_URL, { maxRetriesPerRequest: 3 });
  const workerRedis: RedisClient = workerConnection(REDIS_URL);
  const client = createPlatformClient({
    apiUrl: emulator.apiBase,
    token: emulator.botToken,
    redis,
    keyPrefix: prefix,
    limiter: { globalPerSecond: 200 },
    ...(o.clientEvents && { events: o.clientEvents }),
  });
  const bot = createBotWorker({
    db: db.pool,
    api: client.api,
    workerRedis,
    redis,
    prefix,
    appKey: applicationKey(emulator.botToken),
    logger: o.logger,
    metrics: o.metrics,
    concurrency: o.concurrency,
    sliceMs: 500,
    sliceChanges: 40,
    lockDurationMs: 10_000,
    reconcileEveryMs: o.reconcileEveryMs ?? null,
    rangeSpan: 64,
    ...(o.drift && { drift: { ...o.drift, globalLoad: o.drift.globalLoad ?? (() => client.limiter.globalLoad()) } }),
    ...(o.notifyBudget && { notifyBudget: o.notifyBudget }),
  });
  return {
    emulator,
    db,
    prefix,
    redis,
    client,
    bot,
    async reset(seed) {
      emulator.state.reset();
      emulator.state.seed(seed);
      await db.pool.query(
        'TRUNCATE guild, role_link, link_user, applied_member, link_sync_state, list_change, member_change, link_purge, guild_outage, bot_application CASCADE',
      );
    },
    async close() {
      await bot.close();
      await emulator.close();
      redis.disconnect();
      workerRedis.disconnect();
      if (o.shared) return;
      await db.drop();
      await dropPrefix(prefix);
    },
  };
}
