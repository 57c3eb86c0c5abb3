import { ROLE_ACCESS_MESSAGES } from '@rolelink/domain';
import {
  evaluateAccount,
  evaluateGuild,
  guildReport,
  type AccountFacts,
  type GuildFacts,
  type NamedRole,
} from './setup-check';

const G = '100';
const MANAGE_ROLES = 0x10000000n;
const invite =
  'https://discord.com/oauth2/authorize?client_id=9&scope=bot&permissions=268438656&guild_id=100&disable_guild_select=true';
const input = (linkedRoleIds: string[] = ['20']) => ({ guildId: G, linkedRoleIds, inviteUrl: invite, owner: 'alice' });

const roles = (botPerms = MANAGE_ROLES): NamedRole[] => [
  { id: G, name: '@everyone', position: 0, permissions: 0n, managed: false },
  { id: '20', name: 'Supporter', position: 1, permissions: 0n, managed: false },
  { id: '30', name: 'Booster', position: 2, permissions: 0n, managed: true },
  { id: '40', name: 'RoleLink', position: 3, permissions: botPerms, managed: true },
  { id: '50', name: 'Moderator', position: 4, permissions: 0n, managed: false },
];

const present = (over: Partial<Extract<GuildFacts, { kind: 'present' }>> = {}): GuildFacts => ({
  kind: 'present',
  name: 'Test server',
  mfaRequired: false,
  roles: roles(),
  botRoleIds: ['40'],
  membersListing: 'ok',
  twoFactor: 'not_required',
  ...over,
});

const account = (over: Partial<AccountFacts> = {}): AccountFacts => ({
  token: { kind: 'valid', botUserId: '9', botName: 'rolelink' },
  application: { id: '9', owner: 'alice' },
  invalid: { count: 3, budget: 1000, windowMs: 600_000, authFailures: 0, heldForMs: 0 },
  ...over,
});

const byId = (checks: { id: string }[]) =>
  Object.fromEntries(checks.map((c) => [c.id, c])) as Record<string, ReturnType<typeof evaluateGuild>[number]>;

describe('evaluateAccount', () => {
  it('passes a valid token and a budget mostly left', () => {
    const c = byId(evaluateAccount(account()));
    expect(c.token).toMatchObject({ status: 'pass', fix: null });
    expect(c.invalid_requests).toMatchObject({ status: 'pass' });
    expect(c.invalid_requests!.detail).toContain('997 left');
  });

  it('names the portal step for a 401 token', () => {
    const c = byId(evaluateAccount(account({ token: { kind: 'unauthorized' } })));
    expect(c.token).toMatchObject({ status: 'fail' });
    expect(c.token!.fix).toContain('Bot → Reset Token');
    expect(c.token!.fix).toContain('PLATFORM_BOT_TOKEN');
  });

  it('still names the token after 401s made the limiter hold its calls', () => {
    const c = byId(
      evaluateAccount(
        account({
          token: { kind: 'rate_limited', retryAfterMs: 30_000 },
          invalid: { count: 1, budget: 1000, windowMs: 600_000, authFailures: 1, heldForMs: 30_000 },
        }),
      ),
    );
    expect(c.token).toMatchObject({ status: 'fail' });
    expect(c.token!.detail).toContain('401 Unauthorized 1 time');
    expect(c.token!.fix).toContain('Bot → Reset Token');
  });

  it('warns at half the invalid-request budget and fails when the limiter holds calls', () => {
    expect(
      byId(
        evaluateAccount(
          account({ invalid: { count: 500, budget: 1000, windowMs: 600_000, authFailures: 0, heldForMs: 0 } }),
        ),
      ).invalid_requests!.status,
    ).toBe('warn');
    const held = byId(
      evaluateAccount(
        account({ invalid: { count: 1000, budget: 1000, windowMs: 600_000, authFailures: 0, heldForMs: 90_000 } }),
      ),
    ).invalid_requests!;
    expect(held.status).toBe('fail');
    expect(held.detail).toContain('another 90 s');
    expect(held.fix).toContain('rolelink_platform_invalid_requests_total');
  });
});

describe('evaluateGuild', () => {
  it('passes a correct installation', () => {
    const checks = evaluateGuild(present(), input());
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['bot_in_guild', 'pass'],
      ['members_intent', 'pass'],
      ['manage_roles', 'pass'],
      ['linked_roles', 'pass'],
      ['two_factor', 'pass'],
    ]);
    expect(guildReport(G, evaluateAccount(account()), checks).ok).toBe(true);
  });

  it('gives the invite when the bot is not in the server, and skips the rest', () => {
    const checks = evaluateGuild({ kind: 'absent', failure: { kind: 'guild_unavailable', code: 10004 } }, input());
    const c = byId(checks);
    expect(c.bot_in_guild).toMatchObject({ status: 'fail' });
    expect(c.bot_in_guild!.detail).toContain('404 10004');
    expect(c.bot_in_guild!.fix).toContain(invite);
    expect(checks.slice(1).every((x) => x.status === 'skip')).toBe(true);
    expect(guildReport(G, [], checks).ok).toBe(false);
  });

  it('tells a 500 as the answer it is, and only a call that got nothing back as "did not answer"', () => {
    const fivehundred = byId(
      evaluateGuild(
        { kind: 'unreadable', failure: { kind: 'server_error', status: 500, message: 'Internal Server Error' } },
        input(),
      ),
    ).bot_in_guild!;
    expect(fivehundred).toMatchObject({ status: 'fail' });
    expect(fivehundred.detail).toContain('answered 500');
    expect(fivehundred.detail).not.toContain('did not answer');
    const silent = byId(
      evaluateGuild({ kind: 'unreadable', failure: { kind: 'no_answer', message: 'connect ECONNREFUSED' } }, input()),
    ).bot_in_guild!;
    expect(silent.detail).toContain('did not answer (connect ECONNREFUSED)');
    const token = byId(
      evaluateAccount(account({ token: { kind: 'server_error', status: 503, message: 'Service Unavailable' } })),
    ).token!;
    expect(token.detail).toBe('GET /users/@me failed: the chat platform answered 503, a fault on its side.');
  });

  it('names the portal intent setting on 50001 from the member listing', () => {
    const c = byId(evaluateGuild(present({ membersListing: 'missing_intent' }), input()));
    expect(c.members_intent).toMatchObject({ status: 'fail' });
    expect(c.members_intent!.fix).toContain('Privileged Gateway Intents → switch on SERVER MEMBERS INTENT');
  });

  it("without Manage Roles gives domain's fix and the invite", () => {
    const c = byId(evaluateGuild(present({ roles: roles(0n) }), input()));
    expect(c.manage_roles).toMatchObject({ status: 'fail' });
    expect(c.manage_roles!.fix).toContain(ROLE_ACCESS_MESSAGES.no_manage_roles);
    expect(c.manage_roles!.fix).toContain(invite);
  });

  it("lists each linked role the bot cannot manage, with domain's message", () => {
    const c = byId(evaluateGuild(present(), input(['20', '50', '30', '77'])));
    expect(c.linked_roles).toMatchObject({ status: 'fail' });
    expect(c.linked_roles!.roles).toEqual([
      { role_id: '50', role_name: 'Moderator', problem: 'above_bot', fix: ROLE_ACCESS_MESSAGES.above_bot },
      expect.objectContaining({ role_id: '30', role_name: 'Booster', problem: 'managed' }),
      expect.objectContaining({ role_id: '77', role_name: null, problem: 'unknown_role' }),
    ]);
    expect(c.linked_roles!.roles![1]!.fix).toContain('rolelink link delete 100 30');
    expect(c.linked_roles!.detail).toContain('3 of 4 linked roles');
  });

  it('fails on 60003 with the owner fix, and warns when no change could be tried', () => {
    const refused = byId(
      evaluateGuild(present({ mfaRequired: true, twoFactor: 'owner_needs_2fa' }), input()),
    ).two_factor!;
    expect(refused.status).toBe('fail');
    expect(refused.detail).toContain('60003');
    expect(refused.fix).toContain("The application's owner (alice) turns on two-factor authentication");
    const untried = byId(
      evaluateGuild(present({ mfaRequired: true, twoFactor: { untried: true } }), input([])),
    ).two_factor!;
    expect(untried.status).toBe('warn');
    expect(untried.detail).toContain('cannot be read');
    expect(byId(evaluateGuild(present({ mfaRequired: true, twoFactor: 'accepted' }), input())).two_factor!.status).toBe(
      'pass',
    );
  });
});
