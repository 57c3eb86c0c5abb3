import {
  PermissionFlagsBits,
  type APIGuild,
  type APIRole,
  type RESTError,
  type RESTGetAPICurrentUserGuildsResult,
} from 'discord-api-types/v10';
import type { ErrorBody } from '@rolelink/wire-types';
import { CORRECT_BOT_PERMISSIONS, type GuildRules } from '../src/guild-rules';
import type { EmulatorSeed, SeedGuild } from '../src/seed';
import { startEmulator, type RunningEmulator } from '../src/server';
import {
  call,
  control,
  GUILD,
  NOT_A_MEMBER,
  OWNER,
  ROLE,
  smallSeed,
  UNKNOWN_GUILD,
  USERS,
  TEST_USER_AGENT,
} from './support/fixtures';

/**
 * The platform's rules, each shown refusing and then switched off through the control
 * API or the seed. `smallSeed()` is a correct installation; each test breaks one thing.
 */
const BOT_USER = '1000000000000000001';
const NEVER_AN_ACCOUNT = '488888888888888888';
const MISSING_ACCESS = { message: 'Missing Access', code: 50001 };
const MISSING_PERMISSIONS = { message: 'Missing Permissions', code: 50013 };
const UNKNOWN_GUILD_BODY = { message: 'Unknown Guild', code: 10004 };
const UNKNOWN_USER = { message: 'Unknown User', code: 10013 };
const UNKNOWN_MEMBER = { message: 'Unknown Member', code: 10007 };
const roleRoute = (user: string, role: string) => `/guilds/${GUILD}/members/${user}/roles/${role}`;

function seedWith(change: (g: SeedGuild) => void): EmulatorSeed {
  const seed = smallSeed();
  change(seed.guilds[0]!);
  return seed;
}

describe('platform rules', () => {
  let emulator: RunningEmulator;
  const answer = async (method: string, path: string) => {
    const res = await call<RESTError>(emulator, method, path);
    return [res.status, res.body] as const;
  };
  const rules = async () => (await control<GuildRules>(emulator, 'GET', `/guilds/${GUILD}/rules`)).body;
  const patchRules = (patch: Partial<GuildRules>) =>
    control<GuildRules>(emulator, 'PATCH', `/guilds/${GUILD}/rules`, patch);

  beforeEach(async () => {
    emulator = await startEmulator({
      port: 0,
      seed: smallSeed(),
      roleBucket: { limit: 1000, windowMs: 1000 },
      globalPerSecond: 1000,
    });
  });
  afterEach(() => emulator.close());

  describe('control API', () => {
    it("gives a new application's defaults to a guild seeded without rules, and the seed's otherwise", async () => {
      emulator.state.seed(seedWith((g) => delete g.rules));
      expect(await rules()).toEqual({ membersIntent: false, botInGuild: true, mfaRequired: false, ownerMfa: true });
      emulator.state.seed(
        seedWith((g) => (g.rules = { membersIntent: true, botInGuild: false, mfaRequired: true, ownerMfa: false })),
      );
      expect(await rules()).toEqual({ membersIntent: true, botInGuild: false, mfaRequired: true, ownerMfa: false });
    });

    it('PATCH changes any subset and answers the full rules; refuses other fields, non-booleans and unknown guilds', async () => {
      const res = await patchRules({ mfaRequired: true });
      expect([res.status, res.body]).toEqual([
        200,
        { membersIntent: true, botInGuild: true, mfaRequired: true, ownerMfa: true },
      ]);
      expect(await rules()).toEqual(res.body);
      for (const body of [{ membersIntent: 'yes' }, { intents: true }]) {
        const bad = await control<ErrorBody>(emulator, 'PATCH', `/guilds/${GUILD}/rules`, body);
        expect(bad.status).toBe(400);
      }
      expect((await control(emulator, 'GET', `/guilds/${UNKNOWN_GUILD}/rules`)).status).toBe(404);
      expect((await control(emulator, 'PATCH', `/guilds/${UNKNOWN_GUILD}/rules`, { ownerMfa: false })).status).toBe(
        404,
      );
    });

    it('refuses a seed whose botMember and rules.botInGuild disagree', async () => {
      const res = await control<ErrorBody>(
        emulator,
        'POST',
        '/seed',
        seedWith((g) => {
          g.botMember = true;
          g.rules = { botInGuild: false };
        }),
      );
      expect(res.status).toBe(400);
    });
  });

  describe('Server Members intent', () => {
    it('answers 403 50001 to GET /guilds/:g/members without it, and lists members once it is on', async () => {
      await patchRules({ membersIntent: false });
      expect(await answer('GET', `/guilds/${GUILD}/members?limit=10`)).toEqual([403, MISSING_ACCESS]);
      // One member by id needs no intent.
      expect((await call(emulator, 'GET', `/guilds/${GUILD}/members/${USERS[0]}`)).status).toBe(200);
      await patchRules({ membersIntent: true });
      const listed = await call<unknown[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=10`);
      expect([listed.status, listed.body.length]).toEqual([200, 6]);
    });
  });

  describe('bot not in the guild', () => {
    it('answers 404 10004 on the guild, 403 50001 under it, and leaves it out of /users/@me/guilds, until it is back', async () => {
      expect((await patchRules({ botInGuild: false })).body.botInGuild).toBe(false);
      expect(await answer('GET', `/guilds/${GUILD}`)).toEqual([404, UNKNOWN_GUILD_BODY]);
      for (const path of [
        '/roles',
        '/roles/member-counts',
        '/members?limit=5',
        `/members/${USERS[0]}`,
        '/channels',
        '/audit-logs',
      ]) {
        expect([path, ...(await answer('GET', `/guilds/${GUILD}${path}`))]).toEqual([path, 403, MISSING_ACCESS]);
      }
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.linked))).toEqual([403, MISSING_ACCESS]);
      expect(await answer('DELETE', roleRoute(USERS[0], ROLE.linked))).toEqual([403, MISSING_ACCESS]);
      const posted = await fetch(`${emulator.apiBase}/v10/channels/${GUILD}/messages`, {
        method: 'POST',
        headers: {
          Authorization: `Bot ${emulator.botToken}`,
          'content-type': 'application/json',
          'User-Agent': TEST_USER_AGENT,
        },
        body: JSON.stringify({ content: 'hi' }),
      });
      expect(posted.status).toBe(403);
      expect((await call<RESTGetAPICurrentUserGuildsResult>(emulator, 'GET', '/users/@me/guilds')).body).toEqual([]);
      // A guild that never existed stays 10004 everywhere.
      expect(await answer('GET', `/guilds/${UNKNOWN_GUILD}/roles`)).toEqual([404, UNKNOWN_GUILD_BODY]);
      // Its managed role stays, reserved: nobody holds it while the bot is out.
      expect(emulator.state.holders(GUILD, ROLE.bot)).toEqual([]);

      expect((await patchRules({ botInGuild: true })).body.botInGuild).toBe(true);
      expect(emulator.state.holders(GUILD, ROLE.bot)).toEqual([BOT_USER]);
      expect((await call(emulator, 'GET', `/guilds/${GUILD}`)).status).toBe(200);
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
      expect(
        (await call<RESTGetAPICurrentUserGuildsResult>(emulator, 'GET', '/users/@me/guilds')).body.map((g) => g.id),
      ).toEqual([GUILD]);
    });

    it('starts out of a guild seeded with rules.botInGuild false', async () => {
      emulator.state.seed(seedWith((g) => (g.rules = { membersIntent: true, botInGuild: false })));
      expect(await answer('GET', `/guilds/${GUILD}`)).toEqual([404, UNKNOWN_GUILD_BODY]);
    });
  });

  describe("the bot's own permissions on role changes", () => {
    it('answers 403 50013 without Manage Roles in its effective permissions, and allows it from @everyone or Administrator', async () => {
      emulator.state.seed(
        seedWith(
          (g) => (g.roles.find((r) => r.id === ROLE.bot)!.permissions = PermissionFlagsBits.ViewAuditLog.toString()),
        ),
      );
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.linked))).toEqual([403, MISSING_PERMISSIONS]);
      expect(await answer('DELETE', roleRoute(USERS[0], ROLE.linked))).toEqual([403, MISSING_PERMISSIONS]);
      expect(emulator.state.memberRoles(GUILD, USERS[1])).toEqual([]);

      emulator.state.seed(
        seedWith((g) => {
          g.roles.find((r) => r.id === ROLE.bot)!.permissions = '0';
          g.roles.push({
            id: GUILD,
            name: '@everyone',
            position: 0,
            permissions: PermissionFlagsBits.ManageRoles.toString(),
          });
        }),
      );
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
      emulator.state.seed(
        seedWith(
          (g) => (g.roles.find((r) => r.id === ROLE.bot)!.permissions = PermissionFlagsBits.Administrator.toString()),
        ),
      );
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
    });

    it('never changes a managed role, the bot role included, even below its highest role', async () => {
      emulator.state.seed(
        seedWith((g) => {
          g.roles.push({ id: '300000000000000009', name: 'Server Booster', position: 3, managed: true });
          g.members!.push({ userId: BOT_USER, roles: ['300000000000000001'] });
        }),
      );
      const roles = (await call<APIRole[]>(emulator, 'GET', `/guilds/${GUILD}/roles`)).body;
      expect(roles.filter((r) => r.managed).map((r) => [r.id, r.tags?.bot_id])).toEqual([
        [ROLE.bot, BOT_USER],
        ['300000000000000009', undefined],
      ]);
      expect(await answer('PUT', roleRoute(USERS[1], '300000000000000009'))).toEqual([403, MISSING_PERMISSIONS]);
      // The bot also holds the moderator role (position 10): its own role (5) is below its highest, yet managed.
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.bot))).toEqual([403, MISSING_PERMISSIONS]);
    });

    it('checks every role a PATCH of the member adds or removes, and changes nothing when one is refused', async () => {
      emulator.state.seed(
        seedWith((g) => {
          g.roles.push({ id: '300000000000000009', name: 'Server Booster', position: 3, managed: true });
          g.members!.find((m) => m.userId === USERS[3])!.roles!.push('300000000000000009');
        }),
      );
      const patch = async (user: string, roles: string[]) => {
        const res = await fetch(`${emulator.apiBase}/v10/guilds/${GUILD}/members/${user}`, {
          method: 'PATCH',
          headers: {
            Authorization: `Bot ${emulator.botToken}`,
            'content-type': 'application/json',
            'User-Agent': TEST_USER_AGENT,
          },
          body: JSON.stringify({ roles }),
        });
        return [res.status, (await res.json()) as { roles?: string[] }] as const;
      };
      // USERS[3] holds vip and the managed booster role.
      const ok = await patch(USERS[3], [ROLE.vip, ROLE.linked, '300000000000000009']);
      expect([ok[0], [...ok[1].roles!].sort()]).toEqual([200, [ROLE.linked, ROLE.vip, '300000000000000009'].sort()]);
      expect(await patch(USERS[3], [ROLE.vip, ROLE.linked, '300000000000000009', ROLE.moderator])).toEqual([
        403,
        MISSING_PERMISSIONS,
      ]);
      // Leaving the managed role out would remove it.
      expect(await patch(USERS[3], [ROLE.vip])).toEqual([403, MISSING_PERMISSIONS]);
      expect([...emulator.state.memberRoles(GUILD, USERS[3])!].sort()).toEqual(
        [ROLE.linked, ROLE.vip, '300000000000000009'].sort(),
      );
      await patchRules({ mfaRequired: true, ownerMfa: false });
      expect((await patch(USERS[3], [ROLE.vip, ROLE.linked, '300000000000000009']))[1]).toEqual({
        message: 'Two factor is required for this operation',
        code: 60003,
      });
    });

    it("takes the highest of the bot's roles for the hierarchy, and refuses a role at or above it", async () => {
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.moderator))).toEqual([403, MISSING_PERMISSIONS]);
      emulator.state.seed(seedWith((g) => g.members!.push({ userId: BOT_USER, roles: ['300000000000000001'] })));
      // Now the bot's highest role is the moderator role itself: still not strictly below.
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.moderator))).toEqual([403, MISSING_PERMISSIONS]);
      emulator.state.seed(
        seedWith((g) => {
          g.roles.push({ id: '300000000000000008', name: 'top', position: 20 });
          g.members!.push({ userId: BOT_USER, roles: ['300000000000000008'] });
        }),
      );
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.moderator))).status).toBe(204);
    });
  });

  describe("the bot's role when the bot joins", () => {
    it('is placed at the bottom through an invite, so the bot manages nothing until an admin drags it up', async () => {
      emulator.state.seed(seedWith((g) => (g.rules = { membersIntent: true, botInGuild: false })));
      emulator.state.addBot(GUILD, OWNER, BigInt(CORRECT_BOT_PERMISSIONS));
      const positions = async () =>
        Object.fromEntries(
          (await call<APIRole[]>(emulator, 'GET', `/guilds/${GUILD}/roles`)).body.map((r) => [r.id, r.position]),
        );
      expect(await positions()).toEqual({
        [GUILD]: 0,
        [ROLE.bot]: 1,
        [ROLE.vip]: 2,
        [ROLE.linked]: 3,
        [ROLE.moderator]: 11,
      });
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.linked))).toEqual([403, MISSING_PERMISSIONS]);

      const dragged = await control<APIRole>(emulator, 'PATCH', `/guilds/${GUILD}/roles/${ROLE.bot}`, { position: 5 });
      expect([dragged.status, dragged.body.position]).toEqual([200, 5]);
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
      expect((await control(emulator, 'PATCH', `/guilds/${GUILD}/roles/${GUILD}`, { position: 3 })).status).toBe(400);
      expect((await control(emulator, 'PATCH', `/guilds/${GUILD}/roles/${ROLE.bot}`, { position: 0 })).status).toBe(
        400,
      );
    });

    it('keeps its place and permissions when the control API puts a removed bot back', async () => {
      await patchRules({ botInGuild: false });
      await patchRules({ botInGuild: true });
      const bot = (await call<APIRole[]>(emulator, 'GET', `/guilds/${GUILD}/roles`)).body.find(
        (r) => r.id === ROLE.bot,
      );
      expect(bot).toMatchObject({ position: 5, permissions: CORRECT_BOT_PERMISSIONS, managed: true });
    });
  });

  describe('2FA requirement', () => {
    it('answers 403 60003 to role changes when the guild requires 2FA and the owner has none; either switch lifts it', async () => {
      await patchRules({ mfaRequired: true, ownerMfa: false });
      expect((await call<APIGuild>(emulator, 'GET', `/guilds/${GUILD}`)).body.mfa_level).toBe(1);
      const refused = [403, { message: 'Two factor is required for this operation', code: 60003 }];
      expect(await answer('PUT', roleRoute(USERS[1], ROLE.linked))).toEqual(refused);
      expect(await answer('DELETE', roleRoute(USERS[0], ROLE.linked))).toEqual(refused);
      // Reading is no moderation action.
      expect((await call(emulator, 'GET', `/guilds/${GUILD}/members?limit=5`)).status).toBe(200);
      await patchRules({ ownerMfa: true });
      expect((await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
      await patchRules({ mfaRequired: false, ownerMfa: false });
      expect((await call<APIGuild>(emulator, 'GET', `/guilds/${GUILD}`)).body.mfa_level).toBe(0);
      expect((await call(emulator, 'DELETE', roleRoute(USERS[1], ROLE.linked))).status).toBe(204);
    });
  });

  describe('deleted users', () => {
    it('answers 404 10013 for a deleted account on user and member routes, and 10007 for an account outside the guild', async () => {
      expect((await control(emulator, 'DELETE', `/users/${USERS[0]}`)).status).toBe(204);
      expect(emulator.state.memberRoles(GUILD, USERS[0])).toBeUndefined();
      expect(await answer('GET', `/users/${USERS[0]}`)).toEqual([404, UNKNOWN_USER]);
      expect(await answer('GET', `/guilds/${GUILD}/members/${USERS[0]}`)).toEqual([404, UNKNOWN_USER]);
      expect(await answer('PUT', roleRoute(USERS[0], ROLE.linked))).toEqual([404, UNKNOWN_USER]);
      expect(await answer('DELETE', roleRoute(USERS[0], ROLE.linked))).toEqual([404, UNKNOWN_USER]);
      expect(
        (await call<{ user: { id: string } }[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=10`)).body.map(
          (m) => m.user.id,
        ),
      ).not.toContain(USERS[0]);
      // An id no account ever had is unknown too.
      expect(await answer('GET', `/guilds/${GUILD}/members/${NEVER_AN_ACCOUNT}`)).toEqual([404, UNKNOWN_USER]);
      expect(await answer('PUT', roleRoute(NEVER_AN_ACCOUNT, ROLE.linked))).toEqual([404, UNKNOWN_USER]);

      // An existing account outside the guild: the seed's `users`, or a member who was removed.
      expect((await call(emulator, 'GET', `/users/${NOT_A_MEMBER}`)).status).toBe(200);
      expect(await answer('GET', `/guilds/${GUILD}/members/${NOT_A_MEMBER}`)).toEqual([404, UNKNOWN_MEMBER]);
      expect(await answer('PUT', roleRoute(NOT_A_MEMBER, ROLE.linked))).toEqual([404, UNKNOWN_MEMBER]);
      await control(emulator, 'DELETE', `/guilds/${GUILD}/members/${USERS[1]}`);
      expect(await answer('GET', `/guilds/${GUILD}/members/${USERS[1]}`)).toEqual([404, UNKNOWN_MEMBER]);
    });

    it('refuses to delete an unknown account, the bot or a guild owner, and to add a deleted account back', async () => {
      expect((await control(emulator, 'DELETE', `/users/${NEVER_AN_ACCOUNT}`)).status).toBe(404);
      expect((await control(emulator, 'DELETE', `/users/${BOT_USER}`)).status).toBe(409);
      expect((await control(emulator, 'DELETE', `/users/${OWNER}`)).status).toBe(409);
      await control(emulator, 'DELETE', `/users/${USERS[2]}`);
      expect((await control(emulator, 'DELETE', `/users/${USERS[2]}`)).status).toBe(404);
      expect((await control(emulator, 'POST', `/guilds/${GUILD}/members`, { userId: USERS[2] })).status).toBe(409);
      // Seeding the account again makes it exist again.
      emulator.state.seed(smallSeed());
      expect((await call(emulator, 'GET', `/guilds/${GUILD}/members/${USERS[2]}`)).status).toBe(200);
    });

    it('knows the accounts a seed lists at the top level', async () => {
      emulator.state.seed({ ...smallSeed(), users: [NEVER_AN_ACCOUNT] });
      expect(await answer('GET', `/guilds/${GUILD}/members/${NEVER_AN_ACCOUNT}`)).toEqual([404, UNKNOWN_MEMBER]);
    });
  });
});
