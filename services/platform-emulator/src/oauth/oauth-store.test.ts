import { ACCESS_TOKEN_TTL_S, CODE_TTL_MS, OAuthStore } from './oauth-store';

const GRANT = { clientId: 'dashboard', userId: '610000000000000001', scopes: ['identify', 'guilds'] };
const REDIRECT = 'http://127.0.0.1:3001/auth/callback';

describe('OAuthStore', () => {
  let now = 1_700_000_000_000;
  const store = new OAuthStore(() => now);
  beforeEach(() => {
    now = 1_700_000_000_000;
    store.clear();
  });

  it('redeems a code once, for the client and redirect URI it was issued to', () => {
    const code = store.issueCode(GRANT, REDIRECT);
    const tokens = store.redeemCode(code, 'dashboard', REDIRECT);
    expect(tokens).toMatchObject({ expiresInS: ACCESS_TOKEN_TTL_S, grant: GRANT });
    expect(store.redeemCode(code, 'dashboard', REDIRECT)).toBe('invalid_code');
    expect(store.redeemCode(store.issueCode(GRANT, REDIRECT), 'other', REDIRECT)).toBe('invalid_code');
    expect(store.redeemCode(store.issueCode(GRANT, REDIRECT), 'dashboard', `${REDIRECT}x`)).toBe(
      'redirect_uri_mismatch',
    );
  });

  it('lets a code expire after 10 minutes', () => {
    const fresh = store.issueCode(GRANT, REDIRECT);
    const stale = store.issueCode(GRANT, REDIRECT);
    now += CODE_TTL_MS - 1;
    expect(typeof store.redeemCode(fresh, 'dashboard', REDIRECT)).toBe('object');
    now += 1;
    expect(store.redeemCode(stale, 'dashboard', REDIRECT)).toBe('invalid_code');
  });

  it('lets an access token expire after a week, while its refresh token still works', () => {
    const tokens = store.redeemCode(store.issueCode(GRANT, REDIRECT), 'dashboard', REDIRECT);
    if (typeof tokens === 'string') throw new Error(tokens);
    now += ACCESS_TOKEN_TTL_S * 1000 - 1;
    expect(store.accessGrant(tokens.accessToken)).toMatchObject({ userId: GRANT.userId });
    now += 1;
    expect(store.accessGrant(tokens.accessToken)).toBeUndefined();
    const next = store.refreshTokens(tokens.refreshToken, 'dashboard');
    if (typeof next === 'string') throw new Error(next);
    expect(store.accessGrant(next.accessToken)).toMatchObject({ scopes: GRANT.scopes });
  });

  it('refuses a refresh token of another client or one already used', () => {
    const tokens = store.redeemCode(store.issueCode(GRANT, REDIRECT), 'dashboard', REDIRECT);
    if (typeof tokens === 'string') throw new Error(tokens);
    expect(store.refreshTokens(tokens.refreshToken, 'other')).toBe('invalid_refresh_token');
    expect(typeof store.refreshTokens(tokens.refreshToken, 'dashboard')).toBe('object');
    expect(store.refreshTokens(tokens.refreshToken, 'dashboard')).toBe('invalid_refresh_token');
  });

  it('keeps its own copy of the grant, so a caller changing theirs changes nothing', () => {
    const scopes = ['identify'];
    const code = store.issueCode({ ...GRANT, scopes }, REDIRECT);
    scopes.push('guilds');
    const tokens = store.redeemCode(code, 'dashboard', REDIRECT);
    expect(typeof tokens !== 'string' && tokens.grant.scopes).toEqual(['identify']);
  });
});
