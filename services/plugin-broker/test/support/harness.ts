import type { Job } from 'bullmq';
import type { RedisClient } from '@rolelink/queue';
import { encryptToken, generateToken, hashToken } from '@rolelink/domain';
import { BrokerClient } from '@rolelink/broker-client';
import { PluginJobs, producerConnection, workerConnection } from '@rolelink/queue';
import { AppError, silentLogger, type Logger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { REDIS_URL, dropPrefix, testQueuePrefix } from '../../../../test/support/redis';
import { ConfigCache, type CachedConfig } from '../../src/config-cache';
import {
  DEFAULT_EVENT_DELIVERY,
  type BrokerContext,
  type EventDeliveryOptions,
  type PluginTimeouts,
} from '../../src/context';
import type { Resolver } from '@rolelink/plugin-http';
import { PluginHttp } from '@rolelink/plugin-http';
import { createBrokerWorker, type BrokerWorker } from '../../src/worker';
import { listenBroker } from './broker-server';
import { startTestPlugin, type TestPlugin } from './test-plugin';

export const TEST_KEY = Buffer.alloc(32, 9);
/** Short plugin timeouts so failure tests run fast; the client's deadlines stay above them as in production. */
export const TEST_TIMEOUTS: PluginTimeouts = {
  register: 400,
  fetchConfig: 400,
  submitConfig: 600,
  deleteConfig: 400,
  health: 400,
};
export const TEST_DEADLINES = { register: 1500, fetchConfig: 1500, submitConfig: 2500 };

export type SeededLink = { linkId: string; guildId: string; roleId: string; token: string; pluginUrl: string };

export type Harness = {
  db: TestDb;
  prefix: string;
  plugin: TestPlugin;
  redis: RedisClient;
  ctx: BrokerContext;
  broker: BrokerWorker;
  /** The broker's internal base URL and bearer (BROKER_URL, BROKER_INTERNAL_TOKEN for a CLI under test). */
  brokerUrl: string;
  brokerToken: string;
  client: BrokerClient;
  /** DELETE /config through the queue, as the dashboard and the CLI send it. */
  pluginJobs: PluginJobs;
  seedLink(pluginUrl?: string): Promise<SeededLink>;
  /** Makes the cached structure of a link look `ms` older. */
  ageCache(linkId: string, ms: number): Promise<void>;
  /** Resolves when the worker next completes a job of this name. */
  completed(name: string): Promise<Job>;
  close(): Promise<void>;
};

/** The AppError a promise rejects with (fails the test when it resolves or rejects with anything else). */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

let seq = 500000000000000000n;
const snowflake = (): string => (++seq).toString();

export async function startHarness(
  options: {
    pluginApp?: Parameters<typeof startTestPlugin>[0];
    allowHosts?: string[];
    resolve?: Resolver;
    concurrency?: number;
    timeouts?: Partial<PluginTimeouts>;
    deadlines?: Partial<typeof TEST_DEADLINES>;
    logger?: Logger;
    events?: Partial<EventDeliveryOptions>;
  } = {},
): Promise<Harness> {
  const [db, plugin] = await Promise.all([createTestDb(), startTestPlugin(options.pluginApp)]);
  const prefix = testQueuePrefix();
  const redis = workerConnection(REDIS_URL);
  const producer = producerConnection(REDIS_URL);
  const allowHosts = options.allowHosts ?? ['127.0.0.1'];
  const http = new PluginHttp({ allowHosts, ca: plugin.ca, ...(options.resolve ? { resolve: options.resolve } : {}) });
  const ctx: BrokerContext = {
    db: db.pool,
    http,
    cache: new ConfigCache(redis, prefix),
    secretKey: TEST_KEY,
    allowHosts,
    timeouts: { ...TEST_TIMEOUTS, ...options.timeouts },
    events: { ...DEFAULT_EVENT_DELIVERY, timeoutMs: 400, ...options.events },
    logger: options.logger ?? silentLogger(),
    now: Date.now,
  };
  const broker = createBrokerWorker(ctx, { connection: redis, prefix, concurrency: options.concurrency ?? 8 });
  await broker.ready();
  const server = await listenBroker(ctx, broker);
  const { url: brokerUrl, token: brokerToken } = server;
  const client = new BrokerClient({
    baseUrl: brokerUrl,
    token: brokerToken,
    timeoutsMs: { ...TEST_DEADLINES, ...options.deadlines },
    logger: silentLogger(),
  });
  const pluginJobs = new PluginJobs(producer, prefix, silentLogger());
  const cacheKey = (linkId: string) => `${prefix}:plugin-config:${linkId}`;

  return {
    db,
    prefix,
    plugin,
    redis,
    ctx,
    broker,
    brokerUrl,
    brokerToken,
    client,
    pluginJobs,
    async seedLink(pluginUrl = plugin.url) {
      const guildId = snowflake();
      const roleId = snowflake();
      const token = generateToken();
      await db.prisma.guild.create({ data: { id: BigInt(guildId) } });
      const link = await db.prisma.roleLink.create({
        data: {
          guildId: BigInt(guildId),
          roleId: BigInt(roleId),
          tokenHash: new Uint8Array(hashToken(token)),
          tokenCiphertext: new Uint8Array(encryptToken(token, TEST_KEY)),
          pluginUrl,
        },
      });
      return { linkId: link.id.toString(), guildId, roleId, token, pluginUrl };
    },
    async ageCache(linkId, ms) {
      const raw = await redis.get(cacheKey(linkId));
      if (!raw) throw new Error('nothing cached');
      const entry = JSON.parse(raw) as CachedConfig;
      await redis.set(cacheKey(linkId), JSON.stringify({ ...entry, fetchedAt: entry.fetchedAt - ms }));
    },
    completed(name) {
      // One listener for the whole wait: re-arming `once` after each other job's completion missed a
      // completion emitted in the same turn (a busy CI run waited out its timeout behind event retries).
      return new Promise<Job>((resolve) => {
        const onCompleted = (job: Job) => {
          if (job.name !== name) return;
          broker.worker.off('completed', onCompleted);
          resolve(job);
        };
        broker.worker.on('completed', onCompleted);
      });
    },
    async close() {
      await server.close();
      await pluginJobs.close();
      await broker.close();
      http.close();
      await plugin.close();
      redis.disconnect();
      producer.disconnect();
      await dropPrefix(prefix);
      await db.drop();
    },
  };
}
