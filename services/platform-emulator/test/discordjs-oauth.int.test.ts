import { API } from '@discordjs/core/http-only';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { startEmulator, type RunningEmulator } from '../src/server';
import { ALPHA, authorizationCode, BETA, oauthSeed, PEOPLE, REDIRECT } from './support/oauth-fixtures';

/** The dashboard's side of the sign-in, with the same client library it uses against the platform. */
describe('OAuth2 sign-in through discord.js against the emulator', () => {
  let emulator: RunningEmulator;
  // Sweepers off: their intervals would outlive the test.
  const restFor = (emulator: RunningEmulator) =>
    new REST({ api: emulator.apiBase, version: '10', hashSweepInterval: 0, handlerSweepInterval: 0 });

  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: oauthSeed() });
  });
  afterEach(() => emulator.close());

  it('exchanges the code with oauth2.tokenExchange, then reads the user and their guilds with the bearer token', async () => {
    const code = await authorizationCode(emulator, PEOPLE.plain);
    const oauth = new API(restFor(emulator)).oauth2;
    const tokens = await oauth.tokenExchange({
      client_id: emulator.oauth.clientId,
      client_secret: emulator.oauth.clientSecret,
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
    });
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'identify guilds', expires_in: 604800 });

    // discord.js picks the scheme per REST instance; a user's REST says Bearer.
    const asUser = new API(
      new REST({
        api: emulator.apiBase,
        version: '10',
        authPrefix: 'Bearer',
        hashSweepInterval: 0,
        handlerSweepInterval: 0,
      }).setToken(tokens.access_token),
    );
    expect(await asUser.users.getCurrent()).toEqual({
      id: PEOPLE.plain,
      username: 'plain_user',
      global_name: null,
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      flags: 0,
      primary_guild: null,
      // What only the account's owner sees on /users/@me (Discord's UserPIIResponse).
      mfa_enabled: false,
      locale: 'en-US',
    });
    const guilds = await asUser.users.getGuilds();
    expect(guilds.map((g) => [g.id, g.owner])).toEqual([
      [ALPHA, false],
      [BETA, true],
    ]);

    // Sent as `Bot <token>` (the default prefix), the same access token is refused.
    const asBot = new API(restFor(emulator).setToken(tokens.access_token));
    const wrongScheme = await asBot.users.getCurrent().catch((e: unknown) => e);
    expect(wrongScheme).toMatchObject({ status: 401 });

    const refreshed = await oauth.refreshToken({
      client_id: emulator.oauth.clientId,
      client_secret: emulator.oauth.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });

  it('surfaces a reused code as a DiscordAPIError with status 400', async () => {
    const code = await authorizationCode(emulator, PEOPLE.owner);
    const oauth = new API(restFor(emulator)).oauth2;
    const body = {
      client_id: emulator.oauth.clientId,
      client_secret: emulator.oauth.clientSecret,
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
    } as const;
    await oauth.tokenExchange(body);
    const reused = await oauth.tokenExchange(body).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(DiscordAPIError);
    expect(reused).toMatchObject({ status: 400, rawError: { error: 'invalid_grant' } });
  });
});
