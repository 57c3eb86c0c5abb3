import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import type { GrantFailure, TokenPair } from '../oauth/oauth-store';
import type { OAuthClient } from '../options';
import { oauthError } from './platform-errors';

/** The platform's descriptions, so a client's logs read the same against the emulator and production. */
const GRANT_FAILURES: Record<GrantFailure, string> = {
  invalid_code: 'Invalid "code" in request.',
  redirect_uri_mismatch: 'Invalid "redirect_uri" in request.',
  invalid_refresh_token: 'Invalid "refresh_token" in request.',
};

/**
 * POST /api/v10/oauth2/token (form-encoded): `authorization_code` and `refresh_token` grants. The client
 * authenticates with HTTP Basic or `client_id`/`client_secret` in the body, as the platform allows.
 */
export function tokenHandler(state: EmulatorState): RequestHandler {
  return (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
    const client =
      basicCredentials(req.get('authorization')) ?? bodyCredentials(field('client_id'), field('client_secret'));
    if (!client || !isClient(state.oauthClient, client)) throw oauthError(401, 'invalid_client');

    let result: TokenPair | GrantFailure;
    switch (field('grant_type')) {
      case 'authorization_code': {
        const code = field('code');
        if (!code) throw oauthError(400, 'invalid_request', 'Missing "code" in request.');
        result = state.oauth.redeemCode(code, client.clientId, field('redirect_uri'));
        break;
      }
      case 'refresh_token': {
        const refreshToken = field('refresh_token');
        if (!refreshToken) throw oauthError(400, 'invalid_request', 'Missing "refresh_token" in request.');
        result = state.oauth.refreshTokens(refreshToken, client.clientId);
        break;
      }
      default:
        throw oauthError(400, 'unsupported_grant_type');
    }
    if (typeof result === 'string') throw oauthError(400, 'invalid_grant', GRANT_FAILURES[result]);

    // RFC 6749 §5.1: token answers must not be cached.
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    res.json({
      access_token: result.accessToken,
      token_type: 'Bearer',
      expires_in: result.expiresInS,
      refresh_token: result.refreshToken,
      scope: result.grant.scopes.join(' '),
    } satisfies RESTPostOAuth2AccessTokenResult);
  };
}

/** RFC 6749 §2.3.1: `Basic base64(urlencode(id):urlencode(secret))`. */
function basicCredentials(header: string | undefined): OAuthClient | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unescape = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
    return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function bodyCredentials(clientId: string | undefined, clientSecret: string | undefined): OAuthClient | undefined {
  return clientId !== undefined && clientSecret !== undefined ? { clientId, clientSecret } : undefined;
}

/** Compares digests so the time taken says nothing about the secret, not even its length. */
function isClient(expected: OAuthClient, given: OAuthClient): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return (
    given.clientId === expected.clientId && timingSafeEqual(digest(given.clientSecret), digest(expected.clientSecret))
  );
}
