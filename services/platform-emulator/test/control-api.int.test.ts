import type { ErrorBody } from '@rolelink/wire-types';
import type { APIGuildMember } from 'discord-api-types/v10';
import type { EmulatorStats } from '../src/stats';
import { startEmulator, type RunningEmulator } from '../src/server';
import { call, control, GUILD, NOT_A_MEMBER, ROLE, smallSeed, UNKNOWN_GUILD, USERS } from './support/fixtures';

const BOT_USER = '1000000000000000001';

describe('control API', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    expect((await control(emulator, 'POST', '/seed', smallSeed())).status).toBe(200);
  });
  afterEach(() => emulator.close());

  it('seeds guilds through POST /_emulator/seed, replacing a guild with the same id', async () => {
    const res = await control<{ guilds: { id: string; members: number }[] }>(emulator, 'POST', '/seed', {
      guilds: [
        {
          id: GUILD,
          ownerId: USERS[0],
          roles: [
            { id: ROLE.linked, position: 1 },
            { id: ROLE.bot, position: 3 },
          ],
          botRoleId: ROLE.bot,
          members: [{ userId: USERS[4] }],
          generateMembers: { count: 3, startId: '500000000000000000', roles: [ROLE.linked] },
        },
        { id: UNKNOWN_GUILD, ownerId: USERS[0], roles: [], botRoleId: UNKNOWN_GUILD },
      ],
    });
    expect(res.body.guilds).toEqual([
      { id: GUILD, members: 5 },
      { id: UNKNOWN_GUILD, members: 1 },
    ]);
    expect(emulator.state.holders(GUILD, ROLE.linked)).toEqual([
      '500000000000000000',
      '500000000000000001',
      '500000000000000002',
    ]);
    expect((await call(emulator, 'GET', `/guilds/${GUILD}/members/${USERS[0]}`)).status).toBe(404);
    expect((await call(emulator, 'GET', `/guilds/${UNKNOWN_GUILD}`)).status).toBe(200);
  });

  it('rejects a seed whose members hold a role the guild does not have', async () => {
    const seed = smallSeed();
    seed.guilds[0]!.members!.push({ userId: NOT_A_MEMBER, roles: ['123'] });
    const res = await control<{ details: string[] }>(emulator, 'POST', '/seed', seed);
    expect(res.status).toBe(400);
    expect(res.body.details.join('\n')).toContain('unknown role 123');
    expect(emulator.state.memberRoles(GUILD, NOT_A_MEMBER)).toBeUndefined();
  });

  it('resets to an empty state', async () => {
    await call(emulator, 'GET', '/users/@me');
    expect((await control(emulator, 'POST', '/reset')).status).toBe(204);
    expect((await call(emulator, 'GET', `/guilds/${GUILD}`)).status).toBe(404);
    expect(emulator.state.stats()).toMatchObject({ guilds: 0, requests: 1 });
  });

  it('replaces a member roles by hand, past the hierarchy and without rate limits', async () => {
    const res = await control<APIGuildMember>(emulator, 'PUT', `/guilds/${GUILD}/members/${USERS[1]}/roles`, {
      roles: [ROLE.moderator, ROLE.linked],
    });
    expect(res.status).toBe(200);
    expect(res.body.roles).toEqual([ROLE.moderator, ROLE.linked]);
    expect(emulator.state.memberRoles(GUILD, USERS[1])).toEqual([ROLE.moderator, ROLE.linked]);
    emulator.state.setMemberRoles(GUILD, USERS[0], []);
    expect(emulator.state.holders(GUILD, ROLE.linked)).toEqual([USERS[1], USERS[2]]);
    expect(emulator.state.stats().handEdits).toBe(2);
    expect(emulator.state.stats().requests).toBe(0);
  });

  it('answers 404 to a hand edit of an absent member and 400 to an unknown role', async () => {
    const absent = await control(emulator, 'PUT', `/guilds/${GUILD}/members/${NOT_A_MEMBER}/roles`, { roles: [] });
    expect(absent.status).toBe(404);
    const badRole = await control(emulator, 'PUT', `/guilds/${GUILD}/members/${USERS[0]}/roles`, { roles: ['123'] });
    expect(badRole.status).toBe(400);
    const badGuild = await control(emulator, 'PUT', `/guilds/${UNKNOWN_GUILD}/members/${USERS[0]}/roles`, {
      roles: [],
    });
    expect(badGuild.status).toBe(404);
    const badBody = await control(emulator, 'PUT', `/guilds/${GUILD}/members/${USERS[0]}/roles`, { roles: 'x' });
    expect(badBody.status).toBe(400);
  });

  it('adds and removes members, keeping the listing ordered', async () => {
    const added = await control<APIGuildMember>(emulator, 'POST', `/guilds/${GUILD}/members`, {
      userId: '400000000000000000',
      roles: [ROLE.vip],
    });
    expect([added.status, added.body.roles]).toEqual([201, [ROLE.vip]]);
    expect((await control(emulator, 'POST', `/guilds/${GUILD}/members`, { userId: USERS[0] })).status).toBe(409);
    const first = await call<APIGuildMember[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=2`);
    expect(first.body.map((m) => m.user.id)).toEqual(['400000000000000000', USERS[0]]);

    expect((await control(emulator, 'DELETE', `/guilds/${GUILD}/members/${USERS[0]}`)).status).toBe(204);
    expect((await control(emulator, 'DELETE', `/guilds/${GUILD}/members/${USERS[0]}`)).status).toBe(404);
    expect((await call(emulator, 'PUT', `/guilds/${GUILD}/members/${USERS[0]}/roles/${ROLE.linked}`)).status).toBe(404);
    expect(emulator.state.holders(GUILD, ROLE.vip)).toEqual(['400000000000000000', USERS[3]]);
  });

  it('lists the holders of a role in ascending order', async () => {
    await control(emulator, 'POST', `/guilds/${GUILD}/members`, { userId: '300000000000000000', roles: [ROLE.linked] });
    const res = await control<{ holders: string[] }>(emulator, 'GET', `/guilds/${GUILD}/roles/${ROLE.linked}/holders`);
    expect(res.body).toEqual({ holders: ['300000000000000000', USERS[0], USERS[2]] });
    const bot = await control<{ holders: string[] }>(emulator, 'GET', `/guilds/${GUILD}/roles/${ROLE.bot}/holders`);
    expect(bot.body.holders).toEqual([BOT_USER]);
    expect((await control(emulator, 'GET', `/guilds/${GUILD}/roles/123/holders`)).status).toBe(404);
  });

  it('reports requests, routes, rate limits, invalid requests and applied role changes in stats', async () => {
    const route = (u: string, r: string = ROLE.linked) => `/guilds/${GUILD}/members/${u}/roles/${r}`;
    await call(emulator, 'PUT', route(USERS[1]));
    await call(emulator, 'PUT', route(USERS[1]));
    await call(emulator, 'DELETE', route(USERS[0]));
    await call(emulator, 'DELETE', route(USERS[0], ROLE.moderator));
    await call(emulator, 'GET', '/users/@me', { token: 'bad' });
    const res = await control<EmulatorStats>(emulator, 'GET', '/stats');
    expect(res.body).toMatchObject({
      requests: 5,
      byRoute: {
        'PUT /guilds/:guildId/members/:userId/roles/:roleId': 2,
        'DELETE /guilds/:guildId/members/:userId/roles/:roleId': 2,
        'GET /users/@me': 1,
      },
      byStatus: { 204: 3, 403: 1, 401: 1 },
      rateLimited: { user: 0, global: 0, shared: 0 },
      invalidRequests: 2,
      banned: false,
      roleChangesApplied: { added: 1, removed: 1, unchanged: 1 },
      config: { globalPerSecond: 50, roleBucket: { limit: 10, windowMs: 10_000 }, invalidThreshold: 10_000 },
    });
  });

  it('keeps the audit log of role changes with their reasons', async () => {
    await call(emulator, 'DELETE', `/guilds/${GUILD}/members/${USERS[2]}/roles/${ROLE.linked}`, {
      headers: { 'X-Audit-Log-Reason': 'drift%20repair' },
    });
    const res = await control<{ entries: unknown[] }>(emulator, 'GET', `/guilds/${GUILD}/audit-log`);
    expect(res.body.entries).toEqual([
      expect.objectContaining({
        action: 'member_role_remove',
        userId: USERS[2],
        roleId: ROLE.linked,
        reason: 'drift repair',
        changed: true,
      }),
    ]);
  });

  it('answers 404 in the service error shape to an unknown control route', async () => {
    const res = await control<ErrorBody>(emulator, 'GET', '/nothing');
    expect([res.status, res.body]).toEqual([
      404,
      { statusCode: 404, message: expect.stringMatching(/^Route not found: GET /) },
    ]);
  });
});
