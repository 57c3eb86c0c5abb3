import { Redis } from 'ioredis';
import { correctlyInstalledGuild, startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { createPlatformClient, type PlatformClient } from './client';
import { readRoleHolders } from './role-holders';

const GUILD = '710000000000000010';
const ROLE = { bot: '720000000000000001', linked: '720000000000000002' };

let emulator: RunningEmulator;
let redis: Redis;
let prefix: string;
let client: PlatformClient;

beforeAll(async () => {
  const holders = Array.from({ length: 30 }, (_, i) => ({
    userId: (900000000000000000n + BigInt(i * 97)).toString(),
    roles: [ROLE.linked],
  }));
  emulator = await startEmulator({
    port: 0,
    seed: {
      guilds: [
        correctlyInstalledGuild({
          id: GUILD,
          botRoleId: ROLE.bot,
          linkedRoleId: ROLE.linked,
          generateMembers: { count: 2_500, startId: '900000000000000000' },
          members: holders,
        }),
      ],
    },
  });
  redis = new Redis(REDIS_URL);
  prefix = testQueuePrefix();
  client = createPlatformClient({ apiUrl: emulator.apiBase, token: emulator.botToken, redis, keyPrefix: prefix });
});

afterAll(async () => {
  await emulator.close();
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('readRoleHolders', () => {
  it('gives an exact count and every holder when the whole member listing is read', async () => {
    const result = await readRoleHolders(client.api, GUILD, ROLE.linked);
    expect(result).toMatchObject({ exact: true, count: 30 });
    const seen: string[] = [];
    for await (const page of result.pages()) seen.push(...page);
    expect(seen.sort()).toEqual(emulator.state.holders(GUILD, ROLE.linked).sort());
  });

  it('falls back to the quick count, not exact, when the listing is longer than it may read', async () => {
    const result = await readRoleHolders(client.api, GUILD, ROLE.linked, { maxMembers: 1_000 });
    expect(result).toMatchObject({ exact: false, count: 30, membersIntentMissing: false });
  });

  it('says the Server Members intent is missing when the listing is refused with 403 50001', async () => {
    emulator.state.setRules(GUILD, { membersIntent: false });
    try {
      expect(await readRoleHolders(client.api, GUILD, ROLE.linked)).toMatchObject({
        exact: false,
        count: 30,
        membersIntentMissing: true,
      });
    } finally {
      emulator.state.setRules(GUILD, { membersIntent: true });
    }
    expect(await readRoleHolders(client.api, GUILD, ROLE.linked)).toMatchObject({
      exact: true,
      membersIntentMissing: false,
    });
  });
});
