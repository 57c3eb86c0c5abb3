import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimitError } from '@discordjs/rest';
import { correctlyInstalledGuild, startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { createPlatformClient, type PlatformClient } from './client';
import { classifyPlatformError, PlatformRateLimitedError } from './errors';

// The platform's two unusual 429s, met through the client against the emulator: the edge's ban (no
// rate-limit headers, an HTML body) and a resource's shared limit (retry_after beyond Reset-After).

const GUILD = '710000000000000010';
const OTHER_GUILD = '710000000000000011';
const ROLE = { bot: '720000000000000001', linked: '720000000000000002' };
const USER = '900000000000000001';

const guild = (id: string) =>
  correctlyInstalledGuild({
    id,
    botRoleId: ROLE.bot,
    linkedRoleId: ROLE.linked,
    members: [{ userId: USER, roles: [] }],
  });

let emulator: RunningEmulator;
let redis: Redis;
let otherRedis: Redis;
let prefix: string;
let client: PlatformClient;
/** A second worker process: its own connection, the same limiter keys. */
let other: PlatformClient;
const bans: { began: boolean; blockedMs: number; retryAfterMs: number; inARow: number }[] = [];

beforeEach(async () => {
  emulator = await startEmulator({
    port: 0,
    roleBucket: { limit: 10, windowMs: 2_000 },
    seed: { guilds: [guild(GUILD), guild(OTHER_GUILD)] },
  });
  redis = new Redis(REDIS_URL);
  otherRedis = new Redis(REDIS_URL);
  prefix = testQueuePrefix();
  bans.length = 0;
  const options = {
    apiUrl: `${emulator.apiBase}/v10`,
    token: emulator.botToken,
    keyPrefix: prefix,
    limiter: { offsetMs: 0 },
  };
  client = createPlatformClient({ ...options, redis, events: { edgeBan: (i) => bans.push(i) } });
  // It never waits long in-process, so a test sees the limiter hold it instead of sleeping through.
  other = createPlatformClient({ ...options, redis: otherRedis, maxWaitMs: 100 });
});

afterEach(async () => {
  await emulator.close();
  redis.disconnect();
  otherRedis.disconnect();
  await dropPrefix(prefix);
});

const addRole = (c: PlatformClient, guildId = GUILD) => c.api.guilds.addRoleToMember(guildId, USER, ROLE.linked);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

/** Bans the bot's address: `invalidThreshold` 401s in the window, as a wrong token would cause. */
async function ban(banMs: number): Promise<void> {
  emulator.state.configure({ invalidThreshold: 2, banMs });
  for (let i = 0; i < 2; i++)
    await fetch(`${emulator.apiBase}/v10/users/@me`, {
      headers: { Authorization: 'Bot wrong', 'User-Agent': 'DiscordBot (https://github.com/rolelink/tests, 1.0.0)' },
    });
  expect(emulator.state.stats().banned).toBe(true);
}

describe('the platform client and 429s without the usual headers', () => {
  it("takes the edge's ban for a block of the whole application: every process waits, a second ban in a row waits twice as long", async () => {
    await ban(2_000);
    const banned = await failure(addRole(client));
    // Not REST's RateLimitError for one bucket, and not a JSON error on the HTML page: the whole token
    // waits the edge's Retry-After (whole seconds).
    expect(banned).toBeInstanceOf(PlatformRateLimitedError);
    expect(bans).toEqual([expect.objectContaining({ began: true, inARow: 1 })]);
    const first = bans[0]!;
    expect([1_000, 2_000]).toContain(first.retryAfterMs);
    expect(first.blockedMs).toBe(first.retryAfterMs);
    expect(banned).toMatchObject({ limitedBy: 'edge', retryAfterMs: first.blockedMs });
    expect(classifyPlatformError(banned)).toEqual({ kind: 'rate_limited', retryAfterMs: first.blockedMs });

    // Another process, another guild, another route: held by the limiter, nothing sent.
    const sent = emulator.state.stats().requests;
    expect(await failure(other.api.guilds.getRoles(OTHER_GUILD))).toMatchObject({ limitedBy: 'block' });
    expect(emulator.state.stats().requests).toBe(sent);

    // The edge bans again the first request after the block (the ban outlived its Retry-After): twice as long.
    await waitUntil(async () => (await client.limiter.edgeBanRemaining()) === 0);
    emulator.state.configure({ invalidThreshold: 1, banMs: 60_000 });
    emulator.state.limits.recordInvalid(emulator.state.now());
    const again = await failure(addRole(client));
    expect(bans[1]).toMatchObject({ began: true, inARow: 2 });
    expect(bans[1]!.retryAfterMs).toBeGreaterThanOrEqual(59_000);
    expect(bans[1]!.blockedMs).toBe(2 * bans[1]!.retryAfterMs);
    expect(again).toMatchObject({ limitedBy: 'edge', retryAfterMs: bans[1]!.blockedMs });
    expect(emulator.state.stats().bannedResponses).toBe(2);

    // Once the ban is over (here: lifted, and the limiter's block with it), calls go through again.
    emulator.state.reset();
    emulator.state.seed({ guilds: [guild(GUILD), guild(OTHER_GUILD)] });
    await redis.del(`${prefix}:platform:${tokenId(emulator.botToken)}:block`);
    await addRole(other);
    expect(emulator.state.holders(GUILD, ROLE.linked)).toEqual([USER]);
  });

  it('waits max(retry_after, reset_after) on a shared 429, for that guild only, and does not count it as invalid', async () => {
    emulator.state.limits.limitShared('roles', GUILD, 30_000, emulator.state.now());
    const limited = await failure(addRole(client));
    // REST's RateLimitError carries both figures (Retry-After and the bucket's reset); the larger is kept.
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ scope: 'shared' });
    const err = limited as RateLimitError;
    expect(err.timeToReset).toBeLessThanOrEqual(2_000);
    const wait = classifyPlatformError(limited);
    expect(wait).toMatchObject({ kind: 'rate_limited' });
    expect((wait as { retryAfterMs: number }).retryAfterMs).toBeGreaterThanOrEqual(29_000);

    // The shared limiter holds the guild's role bucket that long, in every process; other guilds go on.
    const held = await failure(addRole(other));
    expect(held).toMatchObject({ limitedBy: 'bucket' });
    expect((held as PlatformRateLimitedError).retryAfterMs).toBeGreaterThan(28_000);
    await addRole(other, OTHER_GUILD);
    expect(emulator.state.stats()).toMatchObject({ rateLimited: { shared: 1 }, invalidRequests: 0 });
    expect(await client.limiter.invalidCount()).toBe(0);
  });
});

/** A deadline far beyond the few seconds the blocks take, so only a block that never ends fails it. */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2_400 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await check()).toBe(true);
}

const tokenId = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);
