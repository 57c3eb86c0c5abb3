import { Queue } from 'bullmq';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { QueueName, type chunkAcceptedBody, type dryRunBody, type ErrorBody, type uploadCreatedBody, type userAddedBody, type userCountBody, type usersListBody } from '@rolelink/contracts';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { createApp } from '../../services/api/src/app';
import { createTestDb, truncateAll, type TestDb } from './db';
import { dropPrefix, REDIS_URL, testQueuePrefix } from './redis';

export type ApiHarness = {
  app: Express;
  db: TestDb;
  prefix: string;
  redis: Redis;
  sync: SyncNotifier;
  syncQueue: Queue;
  /** Empties the database and the sync queue between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/** The real API app over a database and queue prefix of its own. */
export async function startApiHarness(redisUrl = REDIS_URL): Promise<ApiHarness> {
  const db = await createTestDb();
  const prefix = testQueuePrefix();
  // ioredis arms a disconnect timer (2 s by default) even for a socket that never connected, which kept
  // jest alive after the Redis-down tests; a short one is enough for a test connection.
  const redis = producerConnection(redisUrl, { disconnectTimeout: 50 });
  const logger = silentLogger();
  const sync = new SyncNotifier(redis, prefix, logger);
  const app = createApp({ pool: db.pool, sync, logger });
  const queueRedis = producerConnection(REDIS_URL);
  const syncQueue = new Queue(QueueName.roleSync, { connection: queueRedis, prefix });
  return {
    app,
    db,
    prefix,
    redis,
    sync,
    syncQueue,
    async reset() {
      await truncateAll(db);
      await syncQueue.obliterate({ force: true });
    },
    async close() {
      await sync.close();
      await syncQueue.close();
      queueRedis.disconnect();
      redis.disconnect();
      await dropPrefix(prefix);
      await db.drop();
    },
  };
}

export const auth = (token: string) => ({ Authorization: `Token ${token}` });

export { bodyOf } from './body';
/** The API's answers, for bodyOf<T>() (the types come from contracts). */
/** The value a contracts schema parses to (test/ has no zod of its own to call z.infer with). */
type Parsed<S extends { parse: (data: unknown) => unknown }> = ReturnType<S['parse']>;
export type ApiErrorBody = ErrorBody;
export type { ShrinkBody } from '@rolelink/contracts';
export type UserCountBody = Parsed<typeof userCountBody>;
export type UsersListBody = Parsed<typeof usersListBody>;
export type UploadCreatedBody = Parsed<typeof uploadCreatedBody>;
export type ChunkAcceptedBody = Parsed<typeof chunkAcceptedBody>;
export type UserAddedBody = Parsed<typeof userAddedBody>;
export type DryRunBody = Parsed<typeof dryRunBody>;
