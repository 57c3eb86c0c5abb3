import { timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { AppError } from '@rolelink/runtime';
import type { Logger } from '@rolelink/runtime';
import { OAuthClient } from './oauth-client';
import { SESSION_COOKIE } from './session';

/** Only a path on this site may be returned to after sign-in (no `//host`, no scheme: no open redirect). */
export function safeReturnPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s]*$/.test(value) && value.length <= 500 ? value : '/';
}

function sameState(a: string | undefined, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Where a failed sign-in lands: the web app's sign-in page, styled like the rest, which words the failure
 * from its code (web/src/pages/SignInPage.tsx). Only the code travels in the URL, never a message, so
 * nobody can make the page say something of their choosing.
 */
export function signInFailedPath(code: string): string {
  return `/?signin=failed&reason=${encodeURIComponent(/^[a-z_]{1,40}$/.test(code) ? code : 'unknown')}`;
}

const regenerate = (req: Request) =>
  new Promise<void>((resolve, reject) => req.session.regenerate((err?: Error) => (err ? reject(err) : resolve())));
const destroy = (req: Request) =>
  new Promise<void>((resolve, reject) => req.session.destroy((err?: Error) => (err ? reject(err) : resolve())));

/**
 * Sign-in with the platform's OAuth2 authorization-code flow: /auth/login sends the browser to the
 * platform with a fresh `state`; /auth/callback checks it, exchanges the code, reads the user and their
 * guilds, and starts a new session (a new id: no session fixation). Sign-out destroys the session.
 */
export function authRouter(oauth: OAuthClient, logger: Logger): Router {
  const router = Router();

  router.get('/login', (req, res, next) => {
    const state = OAuthClient.newState();
    req.session.oauthState = state;
    req.session.returnTo = safeReturnPath(req.query.next);
    req.session.save((err) => {
      if (err) return next(new AppError(503, 'Sessions are unavailable; try again shortly', 'sessions_unavailable'));
      res.redirect(302, oauth.authorizeUrl(state));
    });
  });

  router.get('/callback', async (req, res, next) => {
    try {
      await callback(req, res);
    } catch (err) {
      // A person lands here in the browser: the app's own sign-in page with the reason and a way back.
      if (!(err instanceof AppError)) return next(err);
      logger.warn('dashboard sign-in failed', { requestId: req.id, code: err.code, message: err.message });
      res.redirect(302, signInFailedPath(err.code));
    }
  });

  const callback = async (req: Request, res: Response): Promise<void> => {
    const expected = req.session.oauthState;
    const returnTo = req.session.returnTo ?? '/';
    delete req.session.oauthState;
    if (typeof req.query.error === 'string') {
      // The admin cancelled on the platform's page: back to the sign-in screen, nothing started.
      res.redirect(302, '/?signin=cancelled');
      return;
    }
    if (!sameState(expected, req.query.state))
      throw new AppError(
        400,
        'Sign-in failed: the sign-in link expired or was not started here; try again',
        'oauth_state',
      );
    if (typeof req.query.code !== 'string' || !req.query.code)
      throw new AppError(400, 'Sign-in failed: the platform sent no code', 'oauth_code');
    const tokens = await oauth.exchangeCode(req.query.code);
    const [user, guilds] = await Promise.all([oauth.user(tokens), oauth.guilds(tokens)]);
    await regenerate(req);
    Object.assign(req.session, { user, tokens, guilds, guildsAt: Date.now() });
    logger.info('dashboard sign-in', { requestId: req.id, userId: user.id });
    res.redirect(302, returnTo);
  };

  router.post('/logout', async (req, res) => {
    await destroy(req);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.status(204).end();
  });

  return router;
}
