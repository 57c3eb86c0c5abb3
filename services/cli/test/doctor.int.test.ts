import { createHash } from 'node:crypto';
import { SharedRateLimiter } from '@rolelink/platform-client';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { producerConnection } from '@rolelink/queue';
import type { SetupCheck } from '@rolelink/contracts';
import { ROLE_ACCESS_MESSAGES } from '@rolelink/domain';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedGuild, seedLink } from '../../../test/support/fixtures';
import type { DoctorReport } from '../src/commands/doctor';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../../../test/support/redis';

/**
 * `rolelink doctor` against the emulator: one guild per broken platform rule, each set up as the
 * emulator's rules make it (seed rules, the bot's role, the hierarchy), and one correct guild. Exit 1 and the
 * right fix for each, exit 0 for the correct one.
 */
const MANAGE_ROLES_AND_AUDIT = (0x10000000n | 0x80n).toString();
const OWNER = '100000000000000009';
const G = {
  correct: '710000000000000001',
  noIntent: '710000000000000002',
  botOut: '710000000000000003',
  noManageRoles: '710000000000000004',
  aboveBot: '710000000000000005',
  ownerNo2fa: '710000000000000006',
  mfaOk: '710000000000000007',
} as const;
/** Each guild's roles: `linked` (below the bot), the bot's own, `high` (above the bot). Ids are the guild's + a suffix. */
const role = (guild: string, which: 'linked' | 'bot' | 'high') =>
  `${guild.slice(0, -1)}${{ linked: '1', bot: '2', high: '3' }[which]}`.replace(/^71/, '72');

function guild(id: string, opts: { botPermissions?: string; rules?: Record<string, boolean> } = {}) {
  return {
    id,
    ownerId: OWNER,
    botRoleId: role(id, 'bot'),
    roles: [
      { id: role(id, 'linked'), name: 'Supporter', position: 1 },
      {
        id: role(id, 'bot'),
        name: 'RoleLink',
        position: 2,
        permissions: opts.botPermissions ?? MANAGE_ROLES_AND_AUDIT,
      },
      { id: role(id, 'high'), name: 'Moderator', position: 3 },
    ],
    rules: { membersIntent: true, ...opts.rules },
  };
}

let emu: RunningEmulator;
let db: TestDb;
let restoreEnv: () => void;
const prefix = testQueuePrefix();

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    seed: {
      guilds: [
        guild(G.correct),
        guild(G.noIntent, { rules: { membersIntent: false } }),
        guild(G.botOut, { rules: { botInGuild: false } }),
        guild(G.noManageRoles, { botPermissions: '0' }),
        guild(G.aboveBot),
        guild(G.ownerNo2fa, { rules: { mfaRequired: true, ownerMfa: false } }),
        guild(G.mfaOk, { rules: { mfaRequired: true, ownerMfa: true } }),
      ],
    },
  });
  db = await createTestDb();
  for (const g of Object.values(G)) {
    await seedGuild(db, { id: g });
    await seedLink(db, { guildId: g, roleId: role(g, g === G.aboveBot ? 'high' : 'linked') });
  }
  restoreEnv = useCliEnv({ db, prefix });
  process.env.PLATFORM_API_URL = `${emu.apiBase}/v10`;
  process.env.PLATFORM_BOT_TOKEN = emu.botToken;
  // No PLATFORM_OAUTH_AUTHORIZE_URL: the invite is the configured platform's (the page at PLATFORM_API_URL's origin).
  delete process.env.PLATFORM_OAUTH_AUTHORIZE_URL;
}, 60_000);
afterAll(async () => {
  restoreEnv();
  await db.drop();
  await emu.close();
  await dropPrefix(prefix);
});

/** Runs `rolelink doctor …` twice in-process: as JSON (the report) and as a person reads it (the text). */
async function doctor(...args: string[]): Promise<{ code: number; report: DoctorReport; text: string }> {
  const json: string[] = [];
  const code = await run(
    ['doctor', ...args, '--json'],
    (s) => json.push(s),
    (s) => json.push(s),
  );
  const lines: string[] = [];
  const humanCode = await run(
    ['doctor', ...args],
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  expect(humanCode).toBe(code);
  return { code, report: JSON.parse(json.join('\n')) as DoctorReport, text: lines.join('\n') };
}

const statuses = (checks: SetupCheck[]) => Object.fromEntries(checks.map((c) => [c.id, c.status]));
const checkOf = (r: DoctorReport, id: SetupCheck['id']) => r.guilds[0]!.checks.find((c) => c.id === id)!;

describe('rolelink doctor', () => {
  it('exits 0 on a correct guild, every check ✓', async () => {
    const { code, report, text } = await doctor(G.correct);
    expect(statuses(report.checks)).toEqual({ token: 'pass', invalid_requests: 'pass' });
    expect(statuses(report.guilds[0]!.checks)).toEqual({
      bot_in_guild: 'pass',
      members_intent: 'pass',
      manage_roles: 'pass',
      linked_roles: 'pass',
      two_factor: 'pass',
    });
    expect(code).toBe(0);
    expect(text).toContain('✓ Server Members intent');
    expect(text).toContain('verdict: ready');
    expect(text).not.toContain('✗');
  });

  it('names the portal setting when the Server Members intent is off', async () => {
    const { code, report, text } = await doctor(G.noIntent);
    expect(code).toBe(1);
    expect(checkOf(report, 'members_intent')).toMatchObject({ status: 'fail' });
    expect(text).toContain('✗ Server Members intent');
    expect(text).toContain('Bot → Privileged Gateway Intents → switch on SERVER MEMBERS INTENT');
  });

  it("gives the bot's invite for a guild the bot is not in", async () => {
    const { code, report, text } = await doctor(G.botOut);
    expect(code).toBe(1);
    expect(statuses(report.guilds[0]!.checks)).toEqual({
      bot_in_guild: 'fail',
      members_intent: 'skip',
      manage_roles: 'skip',
      linked_roles: 'skip',
      two_factor: 'skip',
    });
    const invite = new URL(/adds the bot with (\S+) \(it asks/.exec(checkOf(report, 'bot_in_guild').fix!)![1]!);
    expect(`${invite.origin}${invite.pathname}`).toBe(`${emu.url}/oauth2/authorize`);
    expect(Object.fromEntries(invite.searchParams)).toMatchObject({
      client_id: emu.state.oauthClient.clientId,
      scope: 'bot',
      guild_id: G.botOut,
    });
    expect(text).toContain('✗ Bot in the server');
  });

  it("gives Server Settings → Roles when the bot's roles lack Manage Roles", async () => {
    const { code, report, text } = await doctor(G.noManageRoles);
    expect(code).toBe(1);
    expect(checkOf(report, 'manage_roles')).toMatchObject({ status: 'fail' });
    expect(text).toContain(ROLE_ACCESS_MESSAGES.no_manage_roles);
  });

  it('names the linked role above the bot and the drag that fixes it', async () => {
    const { code, report, text } = await doctor(G.aboveBot);
    expect(code).toBe(1);
    expect(checkOf(report, 'linked_roles').roles).toEqual([
      {
        role_id: role(G.aboveBot, 'high'),
        role_name: 'Moderator',
        problem: 'above_bot',
        fix: ROLE_ACCESS_MESSAGES.above_bot,
      },
    ]);
    expect(text).toContain(`role Moderator (${role(G.aboveBot, 'high')}): ${ROLE_ACCESS_MESSAGES.above_bot}`);
  });

  it('finds the 60003 of a guild requiring 2FA whose application owner has none, and passes the owner with 2FA', async () => {
    const refused = await doctor(G.ownerNo2fa);
    expect(refused.code).toBe(1);
    expect(checkOf(refused.report, 'two_factor')).toMatchObject({ status: 'fail' });
    expect(refused.text).toContain("The application's owner (app-owner) turns on two-factor authentication");
    const ok = await doctor(G.mfaOk);
    expect(checkOf(ok.report, 'two_factor')).toMatchObject({ status: 'pass' });
    expect(ok.code).toBe(0);
  });

  it('without a guild checks every guild with links, and exits 1 when any has a problem', async () => {
    const { code, report } = await doctor();
    expect(report.guilds.map((g) => [g.guild_id, g.ok])).toEqual(
      Object.values(G).map((g) => [g, g === G.correct || g === G.mfaOk]),
    );
    expect(code).toBe(1);
  });

  it('refuses a malformed guild id, and says which variables to set without a platform', async () => {
    const bad = await doctor('12ab');
    expect(bad.code).toBe(1);
    expect(bad.report).toMatchObject({ statusCode: 400, errors: [{ field: 'guildId' }] });
    delete process.env.PLATFORM_API_URL;
    try {
      const unset = await doctor(G.correct);
      expect(unset.code).toBe(1);
      expect(unset.text).toContain('PLATFORM_API_URL and PLATFORM_BOT_TOKEN are not set');
    } finally {
      process.env.PLATFORM_API_URL = `${emu.apiBase}/v10`;
    }
  });

  it('fails when the invalid-request budget is spent: the shared limiter holds every call', async () => {
    // The services' limiter for this token, under its own queue prefix so the other tests keep theirs.
    const spent = testQueuePrefix();
    const redis = producerConnection(REDIS_URL, { enableOfflineQueue: true });
    const tokenId = createHash('sha256').update(emu.botToken).digest('hex').slice(0, 12);
    const limiter = new SharedRateLimiter({ redis, prefix: `${spent}:platform:${tokenId}`, invalidBudget: 1000 });
    const route = { routeKey: 'PUT:/guilds/:id/members/:id/roles/:id', major: G.correct };
    const none = { get: () => null };
    for (let i = 0; i < 1000; i++)
      await limiter.observe(route, { bucketKey: `${spent}:b`, kind: 'token', waitMs: 0, slot: String(i) }, 403, none);
    process.env.QUEUE_PREFIX = spent;
    try {
      const { code, report, text } = await doctor(G.correct);
      expect(code).toBe(1);
      expect(report.checks.find((c) => c.id === 'invalid_requests')).toMatchObject({ status: 'fail' });
      expect(report.checks.find((c) => c.id === 'invalid_requests')!.detail).toContain(
        '1000 of the 1000 invalid requests',
      );
      expect(text).toContain('rolelink_platform_invalid_requests_total');
    } finally {
      process.env.QUEUE_PREFIX = prefix;
      redis.disconnect();
      await dropPrefix(spent);
    }
  });

  it('names the portal step for a token the platform refuses', async () => {
    process.env.PLATFORM_BOT_TOKEN = 'not-the-bot-token';
    try {
      const { code, report, text } = await doctor(G.correct);
      expect(code).toBe(1);
      expect(report.checks[0]).toMatchObject({ id: 'token', status: 'fail' });
      expect(statuses(report.guilds[0]!.checks)).toEqual({
        bot_in_guild: 'skip',
        members_intent: 'skip',
        manage_roles: 'skip',
        linked_roles: 'skip',
        two_factor: 'skip',
      });
      expect(text).toContain('Bot → Reset Token');
    } finally {
      process.env.PLATFORM_BOT_TOKEN = emu.botToken;
    }
  });
});
