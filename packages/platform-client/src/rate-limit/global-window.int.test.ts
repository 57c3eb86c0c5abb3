import { Redis } from 'ioredis';
import { correctlyInstalledGuild, startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../../test/support/redis';
import { routeOf } from '../route';
import { SharedRateLimiter } from './shared-limiter';

// No 429 at a saturated global budget. Several "processes" (limiters on their own Redis
// connections, one set of keys) saturate the global limit, and every request is held up for a random
// while between its grant and its arrival at the platform: an event loop stalled by other work, a slow
// network. The emulator counts each request in its own fixed 1 s global window and answers 429 scope
// global past the limit, so its count of global 429s is the number of requests the limiter let into a
// platform window beyond the budget. It must be 0 however the delays fall.

const GUILD = '710000000000000020';
const ROLE = { bot: '720000000000000001', linked: '720000000000000002' };
const USER = '900000000000000001';
const GLOBAL_PER_SECOND = 20;
const PROCESSES = 3;
const SENDERS_PER_PROCESS = 10;
const REQUESTS = 150;
/** The most a request waits between its grant and being sent. */
const MAX_DELAY_MS = 300;

let emulator: RunningEmulator;
let connections: Redis[];
let prefix: string;

beforeEach(async () => {
  emulator = await startEmulator({
    port: 0,
    globalPerSecond: GLOBAL_PER_SECOND,
    // The guild's bucket far above the global limit: only the global limit binds.
    roleBucket: { limit: 10_000, windowMs: 1_000 },
    seed: {
      guilds: [
        correctlyInstalledGuild({
          id: GUILD,
          botRoleId: ROLE.bot,
          linkedRoleId: ROLE.linked,
          members: [{ userId: USER, roles: [] }],
        }),
      ],
    },
  });
  connections = Array.from({ length: PROCESSES }, () => new Redis(REDIS_URL));
  prefix = testQueuePrefix();
});

afterEach(async () => {
  await emulator.close();
  for (const c of connections) c.disconnect();
  await dropPrefix(prefix);
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the shared limiter against the platform global window', () => {
  it('never lets more than the global limit into one of the platform windows, whatever the delay between grant and arrival', async () => {
    const limiters = connections.map(
      (redis) => new SharedRateLimiter({ redis, prefix, globalPerSecond: GLOBAL_PER_SECOND, offsetMs: 0 }),
    );
    const url = `${emulator.apiBase}/v10/guilds/${GUILD}/members/${USER}/roles/${ROLE.linked}`;
    const route = routeOf('PUT', url);
    let next = 0;
    const statuses: number[] = [];

    const sender = async (limiter: SharedRateLimiter): Promise<void> => {
      while (next < REQUESTS) {
        next += 1;
        // Long enough for any wait the limiter asks for on a busy machine: the test counts, it does not time.
        const grant = await limiter.acquire(route, 600_000);
        await sleep(Math.random() * MAX_DELAY_MS);
        const res = await fetch(url, {
          method: 'PUT',
          headers: {
            authorization: `Bot ${emulator.botToken}`,
            'User-Agent': 'DiscordBot (https://github.com/rolelink/tests, 1.0.0)',
          },
        });
        await res.arrayBuffer();
        await limiter.observe(route, grant, res.status, res.headers);
        statuses.push(res.status);
      }
    };
    await Promise.all(limiters.flatMap((l) => Array.from({ length: SENDERS_PER_PROCESS }, () => sender(l))));

    const stats = emulator.state.stats();
    expect(statuses).toHaveLength(REQUESTS);
    expect(stats.rateLimited).toEqual({ user: 0, global: 0, shared: 0 });
    expect(statuses.filter((s) => s !== 204)).toEqual([]);
  }, 600_000);
});
