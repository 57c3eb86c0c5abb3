import { randomBytes } from 'node:crypto';

/** What a user allowed a client: bound to every code and token issued for it. */
export type OAuthGrant = { clientId: string; userId: string; scopes: readonly string[] };
export type TokenPair = { accessToken: string; refreshToken: string; expiresInS: number; grant: OAuthGrant };
/** Why a code or refresh token was refused; the token route turns each into the platform's `invalid_grant`. */
export type GrantFailure = 'invalid_code' | 'redirect_uri_mismatch' | 'invalid_refresh_token';

/** The platform's lifetimes: codes are short-lived, access tokens last a week. */
export const CODE_TTL_MS = 600_000;
export const ACCESS_TOKEN_TTL_S = 604_800;
/** Expired entries are swept only past this many, so issuing stays O(1) for the sizes the emulator sees. */
const SWEEP_AT = 1_000;

type CodeEntry = OAuthGrant & { redirectUri: string; expiresAt: number };
type AccessEntry = OAuthGrant & { expiresAt: number };
type RefreshEntry = OAuthGrant & { accessToken: string };

/**
 * Authorization codes, access tokens and refresh tokens of the OAuth2 authorization-code flow, in
 * memory. Codes are single use (spent by any redemption attempt, as RFC 6749 §4.1.2 asks); a refresh
 * replaces the whole pair, so the old refresh token and access token stop working.
 */
export class OAuthStore {
  private readonly codes = new Map<string, CodeEntry>();
  private readonly access = new Map<string, AccessEntry>();
  private readonly refresh = new Map<string, RefreshEntry>();

  constructor(private readonly now: () => number) {}

  issueCode(grant: OAuthGrant, redirectUri: string): string {
    if (this.codes.size >= SWEEP_AT) this.sweep(this.codes);
    const code = randomToken();
    this.codes.set(code, { ...copy(grant), redirectUri, expiresAt: this.now() + CODE_TTL_MS });
    return code;
  }

  /** Exchanges a code for tokens; the redirect URI must be the one the code was issued for. */
  redeemCode(code: string, clientId: string, redirectUri: string | undefined): TokenPair | GrantFailure {
    const entry = this.codes.get(code);
    this.codes.delete(code);
    if (!entry || entry.expiresAt <= this.now() || entry.clientId !== clientId) return 'invalid_code';
    if (entry.redirectUri !== redirectUri) return 'redirect_uri_mismatch';
    return this.issueTokens(entry);
  }

  refreshTokens(refreshToken: string, clientId: string): TokenPair | GrantFailure {
    const entry = this.refresh.get(refreshToken);
    if (!entry || entry.clientId !== clientId) return 'invalid_refresh_token';
    this.refresh.delete(refreshToken);
    this.access.delete(entry.accessToken);
    return this.issueTokens(entry);
  }

  /** The grant behind a live access token. */
  accessGrant(accessToken: string): OAuthGrant | undefined {
    const entry = this.access.get(accessToken);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.access.delete(accessToken);
    return undefined;
  }

  clear(): void {
    this.codes.clear();
    this.access.clear();
    this.refresh.clear();
  }

  private issueTokens(grant: OAuthGrant): TokenPair {
    if (this.access.size >= SWEEP_AT) this.sweep(this.access);
    const accessToken = randomToken();
    const refreshToken = randomToken();
    const own = copy(grant);
    this.access.set(accessToken, { ...own, expiresAt: this.now() + ACCESS_TOKEN_TTL_S * 1000 });
    this.refresh.set(refreshToken, { ...own, accessToken });
    return { accessToken, refreshToken, expiresInS: ACCESS_TOKEN_TTL_S, grant: own };
  }

  private sweep(entries: Map<string, { expiresAt: number }>): void {
    const now = this.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  }
}

/** 192 random bits, URL-safe: unguessable, and safe in a query string without escaping. */
function randomToken(): string {
  return randomBytes(24).toString('base64url');
}

function copy(grant: OAuthGrant): OAuthGrant {
  return { clientId: grant.clientId, userId: grant.userId, scopes: [...grant.scopes] };
}
