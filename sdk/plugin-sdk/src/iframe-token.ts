import jwt from 'jsonwebtoken';

/**
 * The iframe auth handoff (spec 4.3, 5.7): the service mints a JWT, passes it to the plugin's page as
 * `rl_token`, and the plugin verifies it with the link's API token (the one it received on /register).
 * Minting and verifying live together so both sides agree on every claim.
 */

/** `iss` of every iframe token: a constant naming the service. */
export const IFRAME_TOKEN_ISSUER = 'role-link-service';
/** `exp` = `iat` + 300 (spec 5.7). */
export const IFRAME_TOKEN_LIFETIME_S = 300;
export const IFRAME_TOKEN_PARAM = 'rl_token';

export type IframeTokenClaims = {
  iss: typeof IFRAME_TOKEN_ISSUER;
  /** The plugin URL of the link. */
  aud: string;
  /** User ID of the viewing admin. */
  sub: string;
  guild_id: string;
  role_id: string;
  iat: number;
  exp: number;
};

export type MintInput = {
  apiToken: string;
  pluginUrl: string;
  viewerId: string;
  guildId: string;
  roleId: string;
  now?: Date;
};

export function mintIframeToken(input: MintInput): string {
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const claims: IframeTokenClaims = {
    iss: IFRAME_TOKEN_ISSUER,
    aud: input.pluginUrl,
    sub: input.viewerId,
    guild_id: input.guildId,
    role_id: input.roleId,
    iat,
    exp: iat + IFRAME_TOKEN_LIFETIME_S,
  };
  // iat is in the payload already; jsonwebtoken keeps a given iat (noTimestamp would delete it).
  return jwt.sign(claims, input.apiToken, { algorithm: 'HS256' });
}

/** `embed_url` with `rl_token` appended; existing query parameters (and any fragment) are preserved. */
export function embedUrlWithToken(embedUrl: string, token: string): string {
  const url = new URL(embedUrl);
  url.searchParams.set(IFRAME_TOKEN_PARAM, token);
  return url.toString();
}

export type VerifyOptions = {
  /** The link's API token, as received in the Authorization header of POST /register. */
  apiToken: string;
  /** Your plugin URL exactly as registered with the service (no trailing slash). */
  pluginUrl: string;
  /** Seconds of clock skew tolerated on `iat`/`exp` (default 5). */
  clockToleranceS?: number;
  now?: Date;
};

/**
 * For plugins: verifies signature (HS256 only), `iss`, `aud` and `exp`, and returns the claims. Throws
 * (jsonwebtoken's errors) for any other algorithm, `alg: none`, a token signed with another link's
 * token, a wrong audience or issuer, an expired token, or missing claims.
 */
export function verifyIframeToken(token: string, options: VerifyOptions): IframeTokenClaims {
  const decoded = jwt.verify(token, options.apiToken, {
    algorithms: ['HS256'],
    issuer: IFRAME_TOKEN_ISSUER,
    audience: options.pluginUrl,
    clockTolerance: options.clockToleranceS ?? 5,
    ...(options.now ? { clockTimestamp: Math.floor(options.now.getTime() / 1000) } : {}),
  });
  if (typeof decoded !== 'object' || decoded === null)
    throw new jwt.JsonWebTokenError('token payload must be an object');
  const c = decoded as Partial<IframeTokenClaims>;
  for (const key of ['sub', 'guild_id', 'role_id'] as const) {
    if (typeof c[key] !== 'string' || c[key] === '') throw new jwt.JsonWebTokenError(`token lacks the ${key} claim`);
  }
  if (typeof c.iat !== 'number' || typeof c.exp !== 'number') throw new jwt.JsonWebTokenError('token lacks iat or exp');
  return c as IframeTokenClaims;
}
