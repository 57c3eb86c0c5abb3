import { optionsFromEnv, readEnv } from './env';

describe('emulator environment', () => {
  it("defaults the OAuth2 client to the dashboard's local credentials", () => {
    expect(optionsFromEnv(readEnv({})).oauth).toEqual({
      clientId: '1000000000000000010',
      clientSecret: 'emulator-oauth-secret',
      redirectUris: ['http://127.0.0.1:3001/auth/callback', 'http://localhost:3001/auth/callback'],
    });
  });

  it('takes the OAuth2 client from EMULATOR_OAUTH_CLIENT_ID, _SECRET and _REDIRECT_URIS', () => {
    const env = readEnv({
      EMULATOR_OAUTH_CLIENT_ID: '123456789012345678',
      EMULATOR_OAUTH_CLIENT_SECRET: 's3cret',
      EMULATOR_OAUTH_REDIRECT_URIS: 'https://a.example/auth/callback, http://127.0.0.1:4001/auth/callback',
    });
    expect(optionsFromEnv(env).oauth).toEqual({
      clientId: '123456789012345678',
      clientSecret: 's3cret',
      redirectUris: ['https://a.example/auth/callback', 'http://127.0.0.1:4001/auth/callback'],
    });
  });

  it('refuses a client id that is not a snowflake, as no platform application has one', () => {
    expect(() => readEnv({ EMULATOR_OAUTH_CLIENT_ID: 'rolelink-dashboard' })).toThrow(/snowflake/);
  });
});
