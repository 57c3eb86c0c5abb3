import RedisStore from 'connect-redis';
import session from 'express-session';
import type { RequestHandler } from 'express';
import type { RedisClient } from '@rolelink/queue';
import type { SignedInUser, UserGuild, UserTokens } from './oauth-client';

/** What a signed-in session holds. Tokens stay server-side (Redis); the browser holds only the session id. */
declare module 'express-session' {
  interface SessionData {
    user: SignedInUser;
    tokens: UserTokens;
    /** The user's guilds as the platform last reported them, and when (refreshed after GUILDS_TTL_MS). */
    guilds: UserGuild[];
    guildsAt: number;
    /** Sign-in in progress: the OAuth2 `state` sent and the page to return to. */
    oauthState: string;
    returnTo: string;
  }
}

export const SESSION_COOKIE = 'rl_session';
/** A dashboard session lasts 12 hours from the last request. */
export const SESSION_TTL_S = 12 * 3600;

/**
 * Server-side sessions in Redis: the cookie is httpOnly, SameSite=Lax (sent on the platform's redirect
 * back, never on cross-site POSTs) and Secure whenever the dashboard is served over https.
 */
export function sessions(opts: {
  redis: RedisClient;
  prefix: string;
  secret: string;
  secure: boolean;
}): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: opts.secret,
    store: new RedisStore({ client: opts.redis, prefix: `${opts.prefix}:dashboard-session:`, ttl: SESSION_TTL_S }),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure: opts.secure, maxAge: SESSION_TTL_S * 1000, path: '/' },
  });
}
