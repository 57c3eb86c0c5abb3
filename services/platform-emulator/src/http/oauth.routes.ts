import { randomBytes } from 'node:crypto';
import express, { Router, type Response } from 'express';
import { OAuth2Scopes } from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import { isRegistered, unregistered } from '../oauth/redirect-uris';
import { isSignInUser, signInUsers } from '../oauth/sign-in-users';
import { pageHeaders } from './html';
import { botAddedPage, botAuthorizePage, botCancelledPage } from './bot-authorize-page';
import { botAuthorizeRequest, botCandidates, botChoice, isBotAuthorize } from './bot-authorize';
import { errorPage, signInPage, type AuthorizeRequest } from './sign-in-page';

/** More buttons than this help nobody; the page says how many it left out. */
const MAX_LISTED = 200;
const KNOWN_SCOPES = new Set<string>(Object.values(OAuth2Scopes));
/** The platform's wording when the user cancels. */
const ACCESS_DENIED = 'The resource owner or authorization server denied the request';

/**
 * The platform's OAuth2 authorization page at /oauth2/authorize, as a "Sign in as" list instead of a
 * login: GET shows the page, POST (the page's forms) redirects back to the client with a code, or with
 * `error=access_denied` on Cancel. As on the platform, redirect_uri must be exactly one of the URIs
 * registered for the application (`redirectUris`, EMULATOR_OAUTH_REDIRECT_URIS). With scope=bot it is the bot authorization
 * ("add the bot to a server", bot-authorize.ts): pick a user and a guild where they may add the bot.
 */
export function oauthRouter(state: EmulatorState): Router {
  const router = Router();

  router.get('/authorize', (req, res) => {
    const nonce = newNonce();
    if (isBotAuthorize(req.query)) {
      const request = botAuthorizeRequest(state, req.query, isRedirectUri);
      if (typeof request === 'string') return sendError(res, request, nonce);
      res
        .status(200)
        .set(pageHeaders(nonce, request.redirectUri && new URL(request.redirectUri).origin, true))
        .send(botAuthorizePage(request, botCandidates(state, request), nonce));
      return;
    }
    const request = authorizeRequest(state, req.query, true);
    if (typeof request === 'string') return sendError(res, request, nonce);
    const { users, total } = signInUsers(state, MAX_LISTED);
    res
      .status(200)
      .set(pageHeaders(nonce, new URL(request.redirectUri).origin))
      .send(signInPage(request, users, total, nonce));
  });

  router.post('/authorize', express.urlencoded({ extended: false, limit: '16kb' }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (isBotAuthorize(body)) return botAuthorizePost(state, body, res);
    const request = authorizeRequest(state, body, false);
    if (typeof request === 'string') return sendError(res, request, newNonce());
    const target = new URL(request.redirectUri);
    const action = text(body, 'action');
    if (action === 'cancel') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', ACCESS_DENIED);
    } else if (action === 'allow') {
      const userId = text(body, 'user_id');
      // Checked again here: the form is only a suggestion, anyone can post to this route.
      if (userId === undefined || !/^\d{1,20}$/.test(userId) || !isSignInUser(state, userId))
        return sendError(
          res,
          `Unknown user_id "${userId ?? ''}": choose one of the users listed on the sign-in page.`,
          newNonce(),
        );
      target.searchParams.set(
        'code',
        state.oauth.issueCode({ clientId: request.clientId, userId, scopes: request.scopes }, request.redirectUri),
      );
    } else {
      return sendError(res, 'Missing or unknown action: it must be allow or cancel.', newNonce());
    }
    if (request.state !== undefined) target.searchParams.set('state', request.state);
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(302, target.toString());
  });

  return router;
}

/**
 * The bot authorization's POST: Cancel, or Authorize for the chosen user and guild (all checked again
 * here: anyone can post to this route). Then back to redirect_uri with guild_id and permissions (or the
 * error), as the platform does, or a page saying it is done when the request had no redirect_uri.
 */
function botAuthorizePost(state: EmulatorState, body: Record<string, unknown>, res: Response): void {
  const request = botAuthorizeRequest(state, body, isRedirectUri);
  if (typeof request === 'string') return sendError(res, request, newNonce());
  const target = request.redirectUri === undefined ? undefined : new URL(request.redirectUri);
  const action = text(body, 'action');
  if (action === 'cancel') {
    const nonce = newNonce();
    if (!target) return void res.status(200).set(pageHeaders(nonce)).send(botCancelledPage(nonce));
    target.searchParams.set('error', 'access_denied');
    target.searchParams.set('error_description', ACCESS_DENIED);
  } else if (action === 'allow') {
    const choice = botChoice(state, request, text(body, 'choice'));
    if (typeof choice === 'string') return sendError(res, choice, newNonce());
    state.addBot(choice.guildId, choice.userId, request.permissions);
    if (!target) {
      const nonce = newNonce();
      return void res
        .status(200)
        .set(pageHeaders(nonce))
        .send(botAddedPage(request.clientId, state.requireGuild(choice.guildId).name, request.permissions, nonce));
    }
    target.searchParams.set('guild_id', choice.guildId);
    target.searchParams.set('permissions', request.permissions.toString());
  } else {
    return sendError(res, 'Missing or unknown action: it must be allow or cancel.', newNonce());
  }
  if (request.state !== undefined) target.searchParams.set('state', request.state);
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(302, target.toString());
}

/** The request's parameters, or what is wrong with them (shown on the error page). */
function authorizeRequest(
  state: EmulatorState,
  source: Record<string, unknown>,
  withResponseType: boolean,
): AuthorizeRequest | string {
  const responseType = text(source, 'response_type');
  if (withResponseType && responseType !== 'code')
    return `Unsupported response_type "${responseType ?? ''}": the emulator implements the authorization code grant only (response_type=code).`;
  const clientId = text(source, 'client_id');
  if (!clientId) return 'Missing client_id.';
  if (clientId !== state.oauthClient.clientId)
    return `Unknown client_id "${clientId}": the emulator knows one client, set by EMULATOR_OAUTH_CLIENT_ID.`;
  const redirectUri = text(source, 'redirect_uri');
  if (!redirectUri) return 'Missing redirect_uri.';
  if (!isRedirectUri(redirectUri))
    return `Invalid redirect_uri "${redirectUri}": it must be an absolute http or https URL without a fragment.`;
  if (!isRegistered(state, redirectUri)) return unregistered(redirectUri);
  const scopes = [...new Set((text(source, 'scope') ?? '').split(' ').filter(Boolean))];
  if (!scopes.length) return 'Missing scope (for example "identify guilds").';
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) return `Invalid scope: ${unknown.join(', ')}.`;
  const oauthState = text(source, 'state');
  return {
    clientId,
    redirectUri,
    scopes,
    ...(oauthState === undefined || oauthState === '' ? {} : { state: oauthState }),
  };
}

function isRedirectUri(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '' && !value.includes('#');
}

/** A repeated parameter arrives as an array: treated as absent rather than guessed at. */
function text(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  return typeof value === 'string' ? value : undefined;
}

function newNonce(): string {
  return randomBytes(16).toString('base64');
}

function sendError(res: Response, message: string, nonce: string): void {
  res.status(400).set(pageHeaders(nonce)).send(errorPage(message, nonce));
}
