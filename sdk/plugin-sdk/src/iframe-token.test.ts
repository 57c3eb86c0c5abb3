import jwt from 'jsonwebtoken';
import { IFRAME_TOKEN_ISSUER, embedUrlWithToken, mintIframeToken, verifyIframeToken } from './iframe-token';

const apiToken = 'rl_' + 'k'.repeat(47);
const pluginUrl = 'https://plugin.example.com';
const mint = (now = new Date()) =>
  mintIframeToken({ apiToken, pluginUrl, viewerId: '123456789012345678', guildId: '1', roleId: '2', now });

describe('iframe tokens (spec 5.7)', () => {
  it('mints HS256 claims iss, aud, sub, guild_id, role_id, iat and exp = iat + 300', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const decoded = jwt.decode(mint(now), { complete: true })!;
    expect(decoded.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const iat = now.getTime() / 1000;
    expect(decoded.payload).toEqual({
      iss: IFRAME_TOKEN_ISSUER,
      aud: pluginUrl,
      sub: '123456789012345678',
      guild_id: '1',
      role_id: '2',
      iat,
      exp: iat + 300,
    });
  });

  it('verifies a fresh token and refuses it after five minutes', () => {
    const now = new Date();
    expect(verifyIframeToken(mint(now), { apiToken, pluginUrl }).guild_id).toBe('1');
    expect(() => verifyIframeToken(mint(now), { apiToken, pluginUrl, now: new Date(now.getTime() + 306_000) })).toThrow(
      /expired/,
    );
  });

  it('refuses alg none, another algorithm, another issuer and missing claims', () => {
    const claims = jwt.decode(mint()) as Record<string, unknown>;
    const none = jwt.sign(claims, '', { algorithm: 'none' });
    expect(() => verifyIframeToken(none, { apiToken, pluginUrl })).toThrow();
    expect(() =>
      verifyIframeToken(jwt.sign(claims, apiToken, { algorithm: 'HS512' }), { apiToken, pluginUrl }),
    ).toThrow(/invalid algorithm/);
    expect(() => verifyIframeToken(jwt.sign({ ...claims, iss: 'someone' }, apiToken), { apiToken, pluginUrl })).toThrow(
      /issuer/,
    );
    const { sub: _sub, ...withoutSub } = claims;
    expect(() => verifyIframeToken(jwt.sign(withoutSub, apiToken), { apiToken, pluginUrl })).toThrow(/sub/);
  });

  it('appends rl_token and keeps the other query parameters and the fragment', () => {
    expect(embedUrlWithToken('https://p.example.com/e?a=1&b=two#top', 'T')).toBe(
      'https://p.example.com/e?a=1&b=two&rl_token=T#top',
    );
  });
});
