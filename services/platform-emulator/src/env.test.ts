import { optionsFromEnv, readEnv } from './env';

describe('emulator environment', () => {
  it("defaults the OAuth2 client to the dashboard's local credentials", () => {
    expect(optionsFromEnv(readEnv({})).oauth).toEqual({
      clientId: 'rolelink-dashboard',
      clientSecret: 'emulator-oauth-secret',
    });
  });

  it('takes the OAuth2 client from EMULATOR_OAUTH_CLIENT_ID and EMULATOR_OAUTH_CLIENT_SECRET', () => {
    const env = readEnv({ EMULATOR_OAUTH_CLIENT_ID: '1234567890', EMULATOR_OAUTH_CLIENT_SECRET: 's3cret' });
    expect(optionsFromEnv(env).oauth).toEqual({ clientId: '1234567890', clientSecret: 's3cret' });
  });
});
