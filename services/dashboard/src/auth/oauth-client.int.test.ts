import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@rolelink/runtime';
import { OAuthClient } from './oauth-client';

// The platform's /users/@me answer, as a stand-in server gives it: the emulator only ever holds valid
// snowflakes, so a platform that answers otherwise has to be played here.
let body: unknown;
let server: http.Server;
let client: OAuthClient;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    // @discordjs/rest sends `@me` percent-encoded; any other path is a 404, so a wrong path fails the tests.
    const me = req.url === '/api/v10/users/%40me' || req.url === '/api/v10/users/@me';
    res.statusCode = me ? 200 : 404;
    res.end(JSON.stringify(me ? body : { message: 'Not found', code: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new OAuthClient({
    apiUrl: `${url}/api/v10`,
    authorizeUrl: `${url}/oauth2/authorize`,
    clientId: '1',
    clientSecret: 's',
    redirectUri: `${url}/cb`,
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const tokens = { accessToken: 't', refreshToken: null, expiresAt: Date.now() + 60_000 };

describe('OAuthClient.user: the signed-in account', () => {
  it('takes a 20-digit ID above 2^63 as the account', async () => {
    body = { id: '18446744073709551615', username: 'wide', global_name: null, avatar: null };
    await expect(client.user(tokens)).resolves.toEqual({
      id: '18446744073709551615',
      username: 'wide',
      global_name: null,
      avatar: null,
    });
  });

  it.each([['abc'], ['0100000000000009999'], ['18446744073709551616']])(
    'refuses an account ID that is not a user ID (%p) with 502 and the reason',
    async (id) => {
      body = { id, username: 'odd', global_name: null, avatar: null };
      const err = (await client.user(tokens).catch((e: unknown) => e)) as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect(err.status).toBe(502);
      expect(err.code).toBe('platform_unavailable');
      expect(err.message).toMatch(
        /^Sign-in failed: the platform answered with an account ID that is not a user ID \(.+\)$/,
      );
    },
  );

  it.each([
    [{ id: 42, username: 'odd' }, 'GET /users/@me answered `id` as a number (expected string, received number)'],
    [{ id: '80351110224678912', global_name: null }, 'GET /users/@me answered without `username`'],
  ])('refuses an answer of the wrong shape (%p) with 502 naming the field', async (answer, named) => {
    body = answer;
    const err = (await client.user(tokens).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(502);
    expect(err.message).toBe(`Could not read your account from the platform: ${named}`);
  });
});
