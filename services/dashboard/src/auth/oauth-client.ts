import { randomBytes } from 'node:crypto';
import { API } from '@discordjs/core/http-only';
import { REST } from '@discordjs/rest';
import { OAuth2Scopes, type APIUser, type RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import { userIdProblem } from '@rolelink/contracts';
import { botInviteUrl } from '@rolelink/domain';
import { PlatformShapeError, shapeCheckedRequest } from '@rolelink/platform-client';
import { AppError } from '@rolelink/runtime';

export type OAuthSettings = {
  /** The platform's (or the emulator's) REST base, PLATFORM_API_URL: `https://discord.com/api`. */
  apiUrl: string;
  authorizeUrl: string;
  clientId: string;
  clientSecret: string;
  /** `${DASHBOARD_PUBLIC_URL}/auth/callback`, registered with the platform's application. */
  redirectUri: string;
};

export type SignedInUser = { id: string; username: string; global_name: string | null; avatar: string | null };
export type UserGuild = { id: string; name: string; icon: string | null; owner: boolean; permissions: string };
export type UserTokens = { accessToken: string; refreshToken: string | null; expiresAt: number };

/** Only what sign-in needs: who the user is and which guilds they are in (with owner and permissions). */
export const SCOPES = [OAuth2Scopes.Identify, OAuth2Scopes.Guilds];

function splitApiUrl(apiUrl: string): { api: string; version: string } {
  const trimmed = apiUrl.replace(/\/+$/, '');
  const m = /^(.*)\/v(\d+)$/.exec(trimmed);
  return m ? { api: m[1] as string, version: m[2] as string } : { api: trimmed, version: '10' };
}

/**
 * The platform's OAuth2 authorization-code flow (Discord's paths; the emulator mirrors them), through
 * @discordjs/core so request shapes and the platform's per-user rate limits are handled by the library.
 * A REST instance per user token: their limits are the user's own, not the bot's shared ones.
 */
export class OAuthClient {
  private readonly rest: { api: string; version: string };

  constructor(
    private readonly settings: OAuthSettings,
    /** A platform answer of the wrong shape (every answer read here is checked: PlatformShapeError). */
    private readonly onShapeError?: (err: PlatformShapeError) => void,
  ) {
    this.rest = splitApiUrl(settings.apiUrl);
  }

  /** Random, unguessable `state`, checked on the way back (CSRF on the sign-in itself). */
  static newState(): string {
    return randomBytes(24).toString('base64url');
  }

  authorizeUrl(state: string): string {
    const url = new URL(this.settings.authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      scope: SCOPES.join(' '),
      state,
      redirect_uri: this.settings.redirectUri,
      prompt: 'none',
    }).toString();
    return url.toString();
  }

  /** The bot's invite on the same authorize endpoint and application as sign-in (see botInviteUrl). */
  botInviteUrl(): string {
    return botInviteUrl(this.settings.authorizeUrl, this.settings.clientId);
  }

  async exchangeCode(code: string): Promise<UserTokens> {
    const api = new API(this.client());
    try {
      const t = await api.oauth2.tokenExchange({
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.settings.redirectUri,
      });
      return {
        accessToken: t.access_token,
        refreshToken: t.refresh_token ?? null,
        expiresAt: Date.now() + t.expires_in * 1000,
      };
    } catch (err) {
      throw platformFailure('Sign-in failed: the platform did not accept the sign-in code', err);
    }
  }

  /**
   * The signed-in account. Its ID becomes the session's user and the audit log's actor (a numeric column):
   * one that is not a user ID is the platform's fault, refused here with the reason, not at the first write.
   */
  async user(tokens: UserTokens): Promise<SignedInUser> {
    let u: APIUser;
    try {
      u = await new API(this.client(tokens.accessToken)).users.getCurrent();
    } catch (err) {
      throw platformFailure('Could not read your account from the platform', err);
    }
    const problem = userIdProblem(String(u.id));
    if (problem)
      throw new AppError(
        502,
        `Sign-in failed: the platform answered with an account ID that is not a user ID (${problem})`,
        'platform_unavailable',
      );
    return { id: u.id, username: u.username, global_name: u.global_name ?? null, avatar: u.avatar ?? null };
  }

  /** Every guild the user is in (the platform pages by 200). */
  async guilds(tokens: UserTokens): Promise<UserGuild[]> {
    const api = new API(this.client(tokens.accessToken));
    const out: UserGuild[] = [];
    let after: string | undefined;
    try {
      for (;;) {
        const page: RESTAPIPartialCurrentUserGuild[] = await api.users.getGuilds({
          limit: 200,
          ...(after ? { after } : {}),
        });
        for (const g of page)
          out.push({
            id: g.id,
            name: g.name,
            icon: g.icon ?? null,
            owner: g.owner === true,
            permissions: String(g.permissions ?? '0'),
          });
        if (page.length < 200) return out;
        after = page[page.length - 1]!.id;
      }
    } catch (err) {
      throw platformFailure('Could not read your servers from the platform', err);
    }
  }

  private client(bearer?: string): REST {
    // No sweepers: these REST instances are short-lived and must not leave timers behind.
    const rest = new REST({
      ...this.rest,
      authPrefix: 'Bearer',
      handlerSweepInterval: 0,
      hashSweepInterval: 0,
      timeout: 10_000,
      retries: 1,
      makeRequest: shapeCheckedRequest(undefined, this.onShapeError),
    });
    return bearer ? rest.setToken(bearer) : rest;
  }
}

function platformFailure(message: string, err: unknown): AppError {
  if (err instanceof PlatformShapeError) return new AppError(502, `${message}: ${err.message}`, 'platform_unavailable');
  const status = (err as { status?: number }).status;
  // A revoked or expired user token: sign in again. Anything else is the platform's failure.
  if (status === 401) return new AppError(401, 'Your sign-in has expired; sign in again', 'signed_out');
  return new AppError(502, message, 'platform_unavailable');
}
