import type { RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../server';
import { control } from '../../test/support/fixtures';
import {
  asUser,
  authorizationCode,
  oauthSeed,
  PEOPLE,
  REDIRECT,
  signIn,
  tokenRequest,
} from '../../test/support/oauth-fixtures';

type OAuthErrorBody = { error: string; error_description?: string };
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('OAuth2 token endpoint (POST /api/v10/oauth2/token)', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: oauthSeed() });
  });
  afterEach(() => emulator.close());

  it('exchanges a code once for a Bearer token pair and answers invalid_grant to its reuse', async () => {
    const code = await authorizationCode(emulator, PEOPLE.mod);
    const res = await tokenRequest<RESTPostOAuth2AccessTokenResult>(emulator, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{32}$/),
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: expect.stringMatching(/^[\w-]{32}$/),
      scope: 'identify guilds',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Behind the same gate as every platform route.
    expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(emulator.state.stats().byRoute['POST /oauth2/token']).toBe(1);

    const again = await tokenRequest<OAuthErrorBody>(emulator, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
    });
    expect([again.status, again.body]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Invalid "code" in request.' },
    ]);
  });

  it('takes the client credentials by HTTP Basic too', async () => {
    const code = await authorizationCode(emulator, PEOPLE.owner, 'identify');
    const res = await tokenRequest<RESTPostOAuth2AccessTokenResult>(
      emulator,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: basic(emulator.oauth.clientId, emulator.oauth.clientSecret) },
    );
    expect([res.status, res.body.scope]).toEqual([200, 'identify']);
  });

  it('answers 401 invalid_client to a wrong secret or client, and the code still works afterwards', async () => {
    const code = await authorizationCode(emulator, PEOPLE.mod);
    const grant = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT };
    const clients: Record<string, string>[] = [
      { client_id: emulator.oauth.clientId, client_secret: 'wrong' },
      { client_id: 'other-client', client_secret: emulator.oauth.clientSecret },
      { client_id: emulator.oauth.clientId },
    ];
    for (const client of clients) {
      const res = await tokenRequest<OAuthErrorBody>(emulator, { ...grant, ...client }, { bodyCredentials: false });
      expect([client, res.status, res.body]).toEqual([client, 401, { error: 'invalid_client' }]);
    }
    const wrongBasic = await tokenRequest(emulator, grant, { authorization: basic(emulator.oauth.clientId, 'wrong') });
    expect(wrongBasic.status).toBe(401);
    expect(emulator.state.stats().invalidRequests).toBe(4);
    expect((await tokenRequest(emulator, grant)).status).toBe(200);
  });

  it('answers 400 invalid_grant when redirect_uri is missing or differs from the authorize one', async () => {
    for (const redirect of [`${REDIRECT}/other`, undefined]) {
      const code = await authorizationCode(emulator, PEOPLE.mod);
      const res = await tokenRequest<OAuthErrorBody>(emulator, {
        grant_type: 'authorization_code',
        code,
        ...(redirect ? { redirect_uri: redirect } : {}),
      });
      expect([res.status, res.body]).toEqual([
        400,
        { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' },
      ]);
    }
  });

  it('answers 400 unsupported_grant_type to another or no grant type, and invalid_request without a code', async () => {
    for (const grantType of ['client_credentials', 'password', undefined]) {
      const res = await tokenRequest<OAuthErrorBody>(emulator, grantType ? { grant_type: grantType } : {});
      expect([grantType, res.status, res.body]).toEqual([grantType, 400, { error: 'unsupported_grant_type' }]);
    }
    const noCode = await tokenRequest<OAuthErrorBody>(emulator, {
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
    });
    expect([noCode.status, noCode.body.error]).toEqual([400, 'invalid_request']);
  });

  it('refreshes into a new pair, after which the old refresh token and access token are refused', async () => {
    const first = await signIn(emulator, PEOPLE.plain);
    const refreshed = await tokenRequest<RESTPostOAuth2AccessTokenResult>(emulator, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'identify guilds' });
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);

    expect((await asUser(emulator, refreshed.body.access_token, '/users/@me')).body).toMatchObject({
      id: PEOPLE.plain,
    });
    expect((await asUser(emulator, first.access_token, '/users/@me')).status).toBe(401);
    const reused = await tokenRequest<OAuthErrorBody>(emulator, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect([reused.status, reused.body]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request.' },
    ]);
  });

  it('forgets codes and tokens on POST /_emulator/reset', async () => {
    const tokens = await signIn(emulator, PEOPLE.owner);
    const code = await authorizationCode(emulator, PEOPLE.owner);
    expect((await control(emulator, 'POST', '/reset')).status).toBe(204);
    emulator.state.seed(oauthSeed());
    expect((await asUser(emulator, tokens.access_token, '/users/@me')).status).toBe(401);
    expect(
      (await tokenRequest(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status,
    ).toBe(400);
    expect(
      (await tokenRequest(emulator, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT })).status,
    ).toBe(400);
  });
});
