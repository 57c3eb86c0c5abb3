import type { RunningEmulator } from '../../src/server';
import { CORRECT_BOT_PERMISSIONS, CORRECT_RULES } from '../../src/guild-rules';
import type { EmulatorSeed } from '../../src/seed';

/**
 * A small guild for tests, installed correctly (the Server Members intent, the bot's role with Manage
 * Roles and View Audit Log): the bot's role sits between a moderator role above it and two roles below.
 * NOT_A_MEMBER is an account that exists outside the guild (10007 Unknown Member, not 10013).
 */
export const GUILD = '111111111111111111';
export const OWNER = '200000000000000001';
export const ROLE = {
  moderator: '300000000000000001',
  bot: '300000000000000002',
  linked: '300000000000000003',
  vip: '300000000000000004',
} as const;
export const USERS = [
  '400000000000000001',
  '400000000000000002',
  '400000000000000003',
  '400000000000000004',
  '400000000000000005',
] as const;
export const NOT_A_MEMBER = '499999999999999999';
export const UNKNOWN_GUILD = '999999999999999999';
export const UNKNOWN_ROLE = '399999999999999999';

export function smallSeed(): EmulatorSeed {
  return {
    guilds: [
      {
        id: GUILD,
        name: 'Test guild',
        ownerId: OWNER,
        roles: [
          { id: ROLE.moderator, name: 'moderator', position: 10 },
          { id: ROLE.bot, name: 'rolelink', position: 5, permissions: CORRECT_BOT_PERMISSIONS },
          { id: ROLE.linked, name: 'linked', position: 2 },
          { id: ROLE.vip, name: 'vip', position: 1 },
        ],
        botRoleId: ROLE.bot,
        rules: CORRECT_RULES,
        users: [NOT_A_MEMBER],
        members: [
          { userId: USERS[2], roles: [ROLE.linked] },
          { userId: USERS[0], roles: [ROLE.linked, ROLE.vip] },
          { userId: USERS[1] },
          { userId: USERS[4], roles: [ROLE.moderator] },
          { userId: USERS[3], roles: [ROLE.vip] },
        ],
      },
    ],
  };
}

/** A client's User-Agent as the platform wants it (`DiscordBot ($url, $versionNumber)`): raw calls in tests send it. */
export const TEST_USER_AGENT = 'DiscordBot (https://github.com/rolelink/tests, 1.0.0)';

export type Answer<T = unknown> = { status: number; headers: Headers; body: T };

/** Calls the emulator's platform API (/api/v10) with the bot token unless told otherwise. */
export async function call<T = unknown>(
  emulator: RunningEmulator,
  method: string,
  path: string,
  options: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const token = options.token === undefined ? emulator.botToken : options.token;
  const headers: Record<string, string> = {
    'User-Agent': TEST_USER_AGENT,
    ...(token === null ? {} : { Authorization: `Bot ${token}` }),
    ...options.headers,
  };
  const res = await fetch(`${emulator.apiBase}/v10${path}`, { method, headers });
  const text = await res.text();
  // The edge's ban page is HTML: kept as text, for tests to see that it is not JSON.
  const json = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, headers: res.headers, body: (text ? (json ? JSON.parse(text) : text) : undefined) as T };
}

/** Calls the control API (/_emulator) with an optional JSON body. */
export async function control<T = unknown>(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const res = await fetch(`${emulator.url}/_emulator${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The guild of a million members (`large-guild.int.test.ts`, `pnpm bench emulator`): ids from LARGE_GUILD.start, all holding the linked role. */
export const LARGE_GUILD = {
  id: '133333333333333333',
  linked: '333333333333333331',
  bot: '333333333333333332',
  start: 100_000_000_000_000_000n,
  count: 1_000_000,
} as const;

export function largeGuildSeed(extraMembers: { userId: string; roles: string[] }[] = []): EmulatorSeed {
  const g = LARGE_GUILD;
  return {
    guilds: [
      {
        id: g.id,
        ownerId: '200000000000000001',
        roles: [
          { id: g.linked, position: 1 },
          { id: g.bot, position: 2, permissions: CORRECT_BOT_PERMISSIONS },
        ],
        botRoleId: g.bot,
        rules: CORRECT_RULES,
        generateMembers: { count: g.count, roles: [g.linked] },
        members: extraMembers,
      },
    ],
  };
}
