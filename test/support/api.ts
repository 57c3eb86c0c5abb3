import { Queue, type QueueOptions } from 'bullmq';
import type { RequestListener, ServerOptions } from 'node:http';
import type { RedisClient } from '@rolelink/queue';
import request from 'supertest';
import { QueueName } from '@rolelink/contracts';
import type { UploadCreatedBody } from '@rolelink/wire-types';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { createApi } from '../../services/api/src/app';
import { bodyOf } from './body';
import { createTestDb, truncateAll, type TestDb } from './db';
import type { SeededLink } from './fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from './redis';

export type ApiHarness = {
  /** What the API's server runs (main.ts): the link pipeline for `/api/role-link/*`, Express for the rest. */
  app: RequestListener;
  /** createApi's request and response classes, for a harness that builds its own server as main.ts does: `http.createServer(h.serverOptions, h.app)`. */
  serverOptions: ServerOptions;
  db: TestDb;
  prefix: string;
  redis: RedisClient;
  sync: SyncNotifier;
  syncQueue: Queue;
  /** Empties the database and the sync queue between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The sync queue as a test reads it: every sync request asked so far is sent first. The API answers a
 * single-user write without waiting for its sync request (SyncNotifier), so a test that reads or empties
 * the queue right after the answer would otherwise race the request.
 */
class SettledQueue extends Queue {
  constructor(
    private readonly sync: SyncNotifier,
    name: string,
    opts: QueueOptions,
  ) {
    super(name, opts);
  }

  override async getJobs(...args: Parameters<Queue['getJobs']>): ReturnType<Queue['getJobs']> {
    await this.sync.settled();
    return super.getJobs(...args);
  }

  override async getWaitingCount(): Promise<number> {
    await this.sync.settled();
    return super.getWaitingCount();
  }

  override async obliterate(...args: Parameters<Queue['obliterate']>): Promise<void> {
    await this.sync.settled();
    return super.obliterate(...args);
  }
}

/** The real API, as its server runs it (createApi's listener), over a database and queue prefix of its own. */
export async function startApiHarness(redisUrl = REDIS_URL): Promise<ApiHarness> {
  const db = await createTestDb();
  const prefix = testQueuePrefix();
  // ioredis arms a disconnect timer (2 s by default) even for a socket that never connected, which kept
  // jest alive after the Redis-down tests; a short one is enough for a test connection.
  const redis = producerConnection(redisUrl, { disconnectTimeout: 50 });
  const logger = silentLogger();
  const sync = new SyncNotifier(redis, prefix, logger);
  const { listener: app, serverOptions } = createApi({ pool: db.pool, sync, logger });
  const queueRedis = producerConnection(REDIS_URL);
  const syncQueue = new SettledQueue(sync, QueueName.roleSync, { connection: queueRedis, prefix });
  return {
    app,
    serverOptions,
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

type LinkAccess = Pick<SeededLink, 'guildId' | 'roleId' | 'token'>;
const uploadBase = (l: LinkAccess) => `/api/role-link/${l.guildId}/${l.roleId}/users/upload`;

/** Opens a chunked upload session as a plugin does (answered 200) and returns its id. */
export async function openUpload(app: RequestListener, link: LinkAccess): Promise<string> {
  const res = await request(app).post(uploadBase(link)).set(auth(link.token)).expect(200);
  return bodyOf<UploadCreatedBody>(res).data.upload_id;
}

/**
 * A chunked upload as a plugin sends it: opens a session, sends each chunk as JSON, in order (each answered
 * 200), and with `commit` commits it (answered 200). Returns the session id, for a test that goes on with
 * the session itself (a dry run, If-Match, an Idempotency-Key).
 */
export async function uploadChunks(
  app: RequestListener,
  link: LinkAccess,
  chunks: readonly unknown[],
  opts: { commit?: boolean } = {},
): Promise<string> {
  const id = await openUpload(app, link);
  for (const chunk of chunks) {
    await request(app)
      .post(`${uploadBase(link)}/${id}/chunk`)
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(chunk))
      .expect(200);
  }
  if (opts.commit) {
    await request(app)
      .post(`${uploadBase(link)}/${id}/commit`)
      .set(auth(link.token))
      .expect(200);
  }
  return id;
}

export { bodyOf } from './body';
/** The API's answers, for bodyOf<T>(): the wire types (contracts' schemas parse to exactly these). */
export type {
  ErrorBody as ApiErrorBody,
  ShrinkBody,
  UserCountBody,
  UsersListBody,
  UploadCreatedBody,
  ChunkAcceptedBody,
  UserAddedBody,
  DryRunBody,
} from '@rolelink/wire-types';
