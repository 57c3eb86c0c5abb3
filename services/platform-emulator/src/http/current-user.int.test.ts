import {
  PermissionFlagsBits,
  type APIRole,
  type APIUser,
  type RESTError,
  type RESTGetAPICurrentUserGuildsResult,
  type RESTGetCurrentApplicationResult,
  type RESTRateLimit,
} from 'discord-api-types/v10';
import { ALL_PERMISSIONS } from '../permissions';
import { APPLICATION_OWNER_ID } from './application';
import { startEmulator, type RunningEmulator } from '../server';
import { call } from '../../test/support/fixtures';
import {
  ALPHA,
  ALPHA_ROLE,
  asUser,
  BETA,
  EVERYONE_BITS,
  oauthSeed,
  PEOPLE,
  signIn,
} from '../../test/support/oauth-fixtures';

const BOT_USER = '1000000000000000001';
const ALL = ALL_PERMISSIONS.toString();
const guildsOf = (body: RESTGetAPICurrentUserGuildsResult) => body.map((g) => [g.id, g.owner, g.permissions]);

describe("current user routes with a signed-in user's bearer token", () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: oauthSeed() });
  });
  afterEach(() => emulator.close());

  it('answers GET /users/@me with the signed-in user and their seeded names', async () => {
    const { access_token } = await signIn(emulator, PEOPLE.mod);
    const res = await asUser<APIUser>(emulator, access_token, '/users/@me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: PEOPLE.mod,
      username: 'mod_user',
      global_name: 'Moderator Mo',
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      flags: 0,
      primary_guild: null,
      // What only the account's owner sees on /users/@me (Discord's UserPIIResponse).
      mfa_enabled: false,
      locale: 'en-US',
    });
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    // The percent-encoded spelling discord.js sends works too.
    expect((await asUser<APIUser>(emulator, access_token, '/users/%40me')).body.id).toBe(PEOPLE.mod);
  });

  it('still answers GET /users/@me with the bot for the bot token', async () => {
    expect((await call<APIUser>(emulator, 'GET', '/users/@me')).body).toMatchObject({ id: BOT_USER, bot: true });
  });

  it('answers GET /applications/@me to the bot token with the OAuth2 client id and the owner', async () => {
    const res = await call<RESTGetCurrentApplicationResult>(emulator, 'GET', '/applications/@me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: emulator.state.oauthClient.clientId,
      owner: { id: APPLICATION_OWNER_ID, username: 'app-owner' },
      bot: { id: BOT_USER },
      team: null,
      redirect_uris: emulator.state.oauthClient.redirectUris,
    });
    expect(res.body.id).toMatch(/^\d{17,20}$/);
  });

  it("carries the Server Members intent in the application's flags when every guild of the bot has it", async () => {
    const flags = async () => (await call<RESTGetCurrentApplicationResult>(emulator, 'GET', '/applications/@me')).body;
    const LIMITED = 1 << 15; // GATEWAY_GUILD_MEMBERS_LIMITED: the portal's switch on an application under 100 servers
    const bots = emulator.state.allGuilds().filter((g) => g.hasBot(emulator.state.botUserId));
    const before = bots.map((g) => [g.id, emulator.state.rules(g.id).membersIntent] as const);
    try {
      for (const g of bots) emulator.state.setRules(g.id, { membersIntent: true });
      expect(await flags()).toMatchObject({ flags: LIMITED, flags_new: String(LIMITED) });
      emulator.state.setRules(bots[0]!.id, { membersIntent: false });
      expect(await flags()).toMatchObject({ flags: 0, flags_new: '0' });
    } finally {
      for (const [id, intent] of before) emulator.state.setRules(id, { membersIntent: intent });
    }
  });

  it('answers 401 to an unknown bearer token and counts it as an invalid request', async () => {
    for (const path of ['/users/@me', '/users/@me/guilds']) {
      const res = await asUser<RESTError>(emulator, 'not-a-token', path);
      expect([path, res.status, res.body]).toEqual([path, 401, { message: '401: Unauthorized', code: 0 }]);
    }
    expect(emulator.state.stats().invalidRequests).toBe(2);
  });

  it('refuses a bearer token on the routes only the bot may call', async () => {
    const { access_token } = await signIn(emulator, PEOPLE.owner);
    expect((await asUser(emulator, access_token, `/guilds/${ALPHA}`)).status).toBe(401);
    expect((await asUser(emulator, access_token, `/guilds/${ALPHA}/members/${PEOPLE.mod}`)).status).toBe(401);
  });

  it("lists the user's guilds with the owner flag and permissions from @everyone and their roles", async () => {
    const permissions = async (user: string) => {
      const { access_token } = await signIn(emulator, user);
      const res = await asUser<RESTGetAPICurrentUserGuildsResult>(emulator, access_token, '/users/@me/guilds');
      expect(res.status).toBe(200);
      return guildsOf(res.body);
    };
    expect(await permissions(PEOPLE.owner)).toEqual([[ALPHA, true, ALL]]);
    expect(await permissions(PEOPLE.mod)).toEqual([
      [ALPHA, false, (EVERYONE_BITS | PermissionFlagsBits.ManageGuild).toString()],
      [BETA, false, '0'],
    ]);
    // Administrator means every bit, as the platform reports it.
    expect(await permissions(PEOPLE.admin)).toEqual([[ALPHA, false, ALL]]);
    expect(await permissions(PEOPLE.plain)).toEqual([
      [ALPHA, false, EVERYONE_BITS.toString()],
      [BETA, true, ALL],
    ]);
  });

  it("answers each guild in the platform's partial shape", async () => {
    const { access_token } = await signIn(emulator, PEOPLE.plain);
    const res = await asUser<RESTGetAPICurrentUserGuildsResult>(emulator, access_token, '/users/@me/guilds');
    expect(res.body[1]).toEqual({
      id: BETA,
      name: 'Beta',
      icon: null,
      banner: null,
      owner: true,
      permissions: ALL,
      features: [],
    });
    const paged = await asUser<RESTGetAPICurrentUserGuildsResult>(
      emulator,
      access_token,
      `/users/@me/guilds?after=${ALPHA}&with_counts=true`,
    );
    expect(paged.body).toEqual([expect.objectContaining({ id: BETA, approximate_member_count: 3 })]);
  });

  it('answers 403 Missing Access (50001) to GET /users/@me/guilds without the guilds scope, and 401 to @me without identify', async () => {
    const identifyOnly = await signIn(emulator, PEOPLE.mod, 'identify');
    const guilds = await asUser<RESTError>(emulator, identifyOnly.access_token, '/users/@me/guilds');
    expect([guilds.status, guilds.body]).toEqual([403, { message: 'Missing Access', code: 50001 }]);
    expect((await asUser(emulator, identifyOnly.access_token, '/users/@me')).status).toBe(200);

    const guildsOnly = await signIn(emulator, PEOPLE.mod, 'guilds');
    expect((await asUser(emulator, guildsOnly.access_token, '/users/@me')).status).toBe(401);
    expect((await asUser(emulator, guildsOnly.access_token, '/users/@me/guilds')).status).toBe(200);
  });

  it("lists every guild for the bot token, not owned, with the bot role's permissions", async () => {
    const res = await call<RESTGetAPICurrentUserGuildsResult>(emulator, 'GET', '/users/@me/guilds');
    expect(guildsOf(res.body)).toEqual([
      [
        ALPHA,
        false,
        (
          EVERYONE_BITS |
          PermissionFlagsBits.ViewChannel |
          PermissionFlagsBits.ManageRoles |
          PermissionFlagsBits.ViewAuditLog
        ).toString(),
      ],
      [BETA, false, (PermissionFlagsBits.ManageRoles | PermissionFlagsBits.ViewAuditLog).toString()],
    ]);
  });

  it("renders seeded role colours and permissions, the bot's role managed and tagged with the bot", async () => {
    const res = await call<APIRole[]>(emulator, 'GET', `/guilds/${ALPHA}/roles`);
    const byId = new Map(res.body.map((r) => [r.id, r]));
    expect(byId.get(ALPHA)).toMatchObject({ permissions: EVERYONE_BITS.toString(), color: 0 });
    expect(byId.get(ALPHA_ROLE.mod)).toMatchObject({
      permissions: '32',
      color: 0x3498db,
      colors: { primary_color: 0x3498db },
    });
    expect(byId.get(ALPHA_ROLE.bot)).toMatchObject({
      permissions: (
        PermissionFlagsBits.ViewChannel |
        PermissionFlagsBits.ManageRoles |
        PermissionFlagsBits.ViewAuditLog
      ).toString(),
      managed: true,
      tags: { bot_id: BOT_USER },
    });
    expect(byId.get(ALPHA_ROLE.mod)).toMatchObject({ managed: false });
    expect(byId.get(ALPHA_ROLE.admin)).toMatchObject({ permissions: '8', color: 0xe74c3c });
  });

  it("limits a user token on its own global window, leaving the bot's untouched", async () => {
    const { access_token } = await signIn(emulator, PEOPLE.mod);
    // The global window is one second, opened by the first of these four quick requests.
    emulator.state.configure({ globalPerSecond: 3 });
    for (let i = 0; i < 3; i++) expect((await asUser(emulator, access_token, '/users/@me')).status).toBe(200);
    const limited = await asUser<RESTRateLimit>(emulator, access_token, '/users/@me');
    expect([limited.status, limited.body.global, limited.headers.get('x-ratelimit-scope')]).toEqual([
      429,
      true,
      'global',
    ]);
    expect((await call(emulator, 'GET', '/users/@me')).status).toBe(200);
    // Same bucket hash for everyone, as on the platform; separate counts per token.
    expect(limited.headers.get('x-ratelimit-bucket')).toBe(
      (await call(emulator, 'GET', '/users/@me')).headers.get('x-ratelimit-bucket'),
    );
  });
});
