import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { ownRedis, type OwnRedis } from '../../../test/support/own-redis';
import { createPlatformClient, type PlatformClient } from './client';
import { classifyPlatformError, PlatformLimiterUnavailableError } from './errors';

// The shared limiter lives in Redis. When Redis goes, a role change must end one of two ways the sync
// engine can act on: not sent (PlatformLimiterUnavailableError: the slice yields and repeats the change),
// or sent and answered (the answer stands). Before, a Redis error after the platform's answer turned an
// add the platform had made into a "failed" one, and that user kept the role after leaving the list (the
// Redis-loss scenario caught it: one holder too many).

const GUILD = '710000000000000010';
const ROLE = '720000000000000002';
const USER = '900000000000000001';

let redis: OwnRedis;
let connection: Redis;
let platform: http.Server;
let received = 0;
let onRequest: () => Promise<void> = () => Promise.resolve();
let client: PlatformClient;
const unavailable: string[] = [];

beforeAll(async () => {
  redis = await ownRedis();
  await redis.start();
  // What the bot worker's limiter connection uses (services/bot-worker/src/main.ts).
  connection = new Redis(redis.url, { maxRetriesPerRequest: 3 });
  connection.on('error', () => undefined);
  // A platform that grants the role (204) after whatever the test arranges.
  platform = http.createServer((req, res) => {
    received++;
    void onRequest().then(() => res.writeHead(204).end());
  });
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
  const apiUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}/api/v10`;
  client = createPlatformClient({
    apiUrl,
    token: 'bot-token',
    redis: connection,
    keyPrefix: 'outage',
    events: { limiterUnavailable: (i) => unavailable.push(i.stage) },
  });
});
afterAll(async () => {
  connection.disconnect();
  await redis.kill();
  await new Promise((r) => platform.close(r));
});
beforeEach(() => {
  received = 0;
  unavailable.length = 0;
  onRequest = () => Promise.resolve();
});

it('keeps the answer of a call whose limiter Redis died while the platform answered', async () => {
  onRequest = () => redis.kill(); // the platform grants the role; Redis is gone before the limiter hears of it
  await expect(client.api.guilds.addRoleToMember(GUILD, USER, ROLE)).resolves.toBeUndefined();
  expect(received).toBe(1);
  expect(unavailable).toEqual(['observe']);
});

it('sends nothing while the limiter cannot be reached, and says so in a way callers yield on', async () => {
  // Redis is down since the previous test.
  const err: unknown = await client.api.guilds.removeRoleFromMember(GUILD, USER, ROLE).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PlatformLimiterUnavailableError);
  expect(classifyPlatformError(err)).toEqual({ kind: 'limiter_unavailable', retryAfterMs: 1_000 });
  expect(received).toBe(0);
  expect(unavailable).toEqual(['acquire']);
});

it('sends again once Redis is back', async () => {
  await redis.start();
  await expect(client.api.guilds.addRoleToMember(GUILD, USER, ROLE)).resolves.toBeUndefined();
  expect(received).toBe(1);
});
