import type { APIGuild, APIGuildMember, APIRole, APIUser, RESTError } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../src/server';
import {
  call,
  GUILD,
  NOT_A_MEMBER,
  OWNER,
  ROLE,
  smallSeed,
  UNKNOWN_GUILD,
  UNKNOWN_ROLE,
  USERS,
  TEST_USER_AGENT,
} from './support/fixtures';

const BOT_USER = '1000000000000000001';
const roleRoute = (user: string, role: string) => `/guilds/${GUILD}/members/${user}/roles/${role}`;

describe('platform API routes', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    // Generous limits: this file is about routes and answers, not rate limits.
    emulator = await startEmulator({
      port: 0,
      seed: smallSeed(),
      roleBucket: { limit: 1000, windowMs: 1000 },
      globalPerSecond: 1000,
    });
  });
  afterAll(() => emulator.close());

  it('answers GET /users/@me with the bot user', async () => {
    const res = await call<APIUser>(emulator, 'GET', '/users/@me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: BOT_USER, bot: true, discriminator: '0' });
  });

  it('answers 401 with the platform body to a request without a valid bot token', async () => {
    for (const token of [null, 'wrong-token']) {
      const res = await call<RESTError>(emulator, 'GET', '/users/@me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: '401: Unauthorized', code: 0 });
      expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    }
    const bearer = await fetch(`${emulator.apiBase}/v10/users/@me`, {
      headers: { Authorization: emulator.botToken, 'User-Agent': TEST_USER_AGENT },
    });
    expect(bearer.status).toBe(401);
  });

  it('answers GET /guilds/:g with the guild, and with approximate counts only when asked', async () => {
    const plain = await call<APIGuild>(emulator, 'GET', `/guilds/${GUILD}`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ id: GUILD, name: 'Test guild', owner_id: OWNER });
    expect(plain.body.approximate_member_count).toBeUndefined();
    const counted = await call<APIGuild>(emulator, 'GET', `/guilds/${GUILD}?with_counts=true`);
    // Five seeded members plus the bot itself.
    expect(counted.body).toMatchObject({ approximate_member_count: 6, approximate_presence_count: 0 });
  });

  it('answers 404 Unknown Guild (10004) for a guild it does not know, on every guild route', async () => {
    for (const path of ['', '/roles', '/roles/member-counts', '/members', `/members/${USERS[0]}`]) {
      const res = await call<RESTError>(emulator, 'GET', `/guilds/${UNKNOWN_GUILD}${path}`);
      expect([path, res.status, res.body]).toEqual([path, 404, { message: 'Unknown Guild', code: 10004 }]);
    }
    const put = await call(emulator, 'PUT', `/guilds/${UNKNOWN_GUILD}/members/${USERS[0]}/roles/${ROLE.linked}`);
    expect(put.body).toEqual({ message: 'Unknown Guild', code: 10004 });
  });

  it('lists the roles with @everyone added and positions as seeded', async () => {
    const res = await call<APIRole[]>(emulator, 'GET', `/guilds/${GUILD}/roles`);
    expect(res.status).toBe(200);
    expect(res.body.map((r) => [r.id, r.name, r.position])).toEqual([
      [GUILD, '@everyone', 0],
      [ROLE.moderator, 'moderator', 10],
      [ROLE.bot, 'rolelink', 5],
      [ROLE.linked, 'linked', 2],
      [ROLE.vip, 'vip', 1],
    ]);
  });

  it('counts the members of every role except @everyone', async () => {
    const res = await call<Record<string, number>>(emulator, 'GET', `/guilds/${GUILD}/roles/member-counts`);
    expect(res.body).toEqual({ [ROLE.moderator]: 1, [ROLE.bot]: 1, [ROLE.linked]: 2, [ROLE.vip]: 2 });
  });

  it('lists members ordered by user id, one by default, paging with after and limit', async () => {
    const first = await call<APIGuildMember[]>(emulator, 'GET', `/guilds/${GUILD}/members`);
    expect(first.body.map((m) => m.user.id)).toEqual([USERS[0]]);
    expect(first.body[0]).toMatchObject({ roles: [ROLE.linked, ROLE.vip], deaf: false, mute: false });
    expect(first.body[0]?.joined_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const seen: string[] = [];
    let after = '0';
    for (;;) {
      const page = await call<APIGuildMember[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=2&after=${after}`);
      if (page.body.length === 0) break;
      expect(page.body.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.map((m) => m.user.id));
      after = page.body.at(-1)!.user.id;
    }
    expect(seen).toEqual([...USERS, BOT_USER]);

    const all = await call<APIGuildMember[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=1000&after=${USERS[2]}`);
    expect(all.body.map((m) => m.user.id)).toEqual([USERS[3], USERS[4], BOT_USER]);
  });

  it('answers 400 Invalid Form Body (50035) to a members limit outside 1 to 1000 or a bad after', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'after=notanid']) {
      const res = await call<RESTError>(emulator, 'GET', `/guilds/${GUILD}/members?${query}`);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 50035]);
    }
    const res = await call<RESTError>(emulator, 'GET', `/guilds/${GUILD}/members?limit=1001`);
    expect(res.body.errors).toEqual({
      limit: { _errors: [{ code: 'NUMBER_TYPE_MAX', message: 'int value should be less than or equal to 1000.' }] },
    });
  });

  it('answers GET /guilds/:g/members/:u with the member, or 404 Unknown Member (10007)', async () => {
    const member = await call<APIGuildMember>(emulator, 'GET', `/guilds/${GUILD}/members/${USERS[3]}`);
    expect(member.body).toMatchObject({ user: { id: USERS[3] }, roles: [ROLE.vip] });
    const missing = await call<RESTError>(emulator, 'GET', `/guilds/${GUILD}/members/${NOT_A_MEMBER}`);
    expect([missing.status, missing.body]).toEqual([404, { message: 'Unknown Member', code: 10007 }]);
  });

  it('adds and removes a role with 204, idempotently', async () => {
    const user = USERS[1];
    for (let i = 0; i < 2; i++) {
      const res = await call(emulator, 'PUT', roleRoute(user, ROLE.linked));
      expect([res.status, res.body]).toEqual([204, undefined]);
    }
    expect(emulator.state.memberRoles(GUILD, user)).toEqual([ROLE.linked]);
    for (let i = 0; i < 2; i++) expect((await call(emulator, 'DELETE', roleRoute(user, ROLE.linked))).status).toBe(204);
    expect(emulator.state.memberRoles(GUILD, user)).toEqual([]);
  });

  it('answers 404 Unknown Member (10007) and 404 Unknown Role (10011) to role changes', async () => {
    const member = await call(emulator, 'PUT', roleRoute(NOT_A_MEMBER, ROLE.linked));
    expect([member.status, member.body]).toEqual([404, { message: 'Unknown Member', code: 10007 }]);
    const role = await call(emulator, 'DELETE', roleRoute(USERS[0], UNKNOWN_ROLE));
    expect([role.status, role.body]).toEqual([404, { message: 'Unknown Role', code: 10011 }]);
  });

  it('answers 403 Missing Permissions (50013) for a role not strictly below the bot role', async () => {
    for (const role of [ROLE.bot, ROLE.moderator]) {
      const res = await call(emulator, 'PUT', roleRoute(USERS[1], role));
      expect([res.status, res.body]).toEqual([403, { message: 'Missing Permissions', code: 50013 }]);
    }
    const remove = await call(emulator, 'DELETE', roleRoute(USERS[4], ROLE.moderator));
    expect(remove.status).toBe(403);
    expect(emulator.state.memberRoles(GUILD, USERS[4])).toEqual([ROLE.moderator]);
  });

  it('records the URL-decoded X-Audit-Log-Reason of a role change', async () => {
    const reason = 'role link 42: plugin list ✓';
    await call(emulator, 'PUT', roleRoute(USERS[3], ROLE.linked), {
      headers: { 'X-Audit-Log-Reason': encodeURIComponent(reason) },
    });
    expect(emulator.state.auditLog(GUILD).at(-1)).toMatchObject({
      action: 'member_role_add',
      userId: USERS[3],
      roleId: ROLE.linked,
      reason,
      changed: true,
    });
  });

  it('answers 400 (50035) to a path id that is not a snowflake and 404 (code 0) to an unknown route', async () => {
    const bad = await call<RESTError>(emulator, 'GET', '/guilds/abc');
    expect([bad.status, bad.body.code]).toEqual([400, 50035]);
    const unknown = await call<RESTError>(emulator, 'GET', '/channels/1');
    expect([unknown.status, unknown.body]).toEqual([404, { message: '404: Not Found', code: 0 }]);
  });

  it('puts rate-limit headers on every platform answer', async () => {
    for (const [method, path] of [
      ['GET', '/users/@me'],
      ['GET', `/guilds/${UNKNOWN_GUILD}`],
      ['PUT', roleRoute(USERS[0], ROLE.linked)],
    ] as const) {
      const res = await call(emulator, method, path);
      expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+\.\d{3}$/);
      expect(res.headers.get('x-ratelimit-reset-after')).toMatch(/^\d+\.\d{3}$/);
      expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});
