import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@rolelink/runtime';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { EmulatorState } from '../emulator-state';
import type { WindowState } from '../fixed-window';
import type { OAuthGrant } from '../oauth/oauth-store';
import type { BucketKind, Scope } from '../rate-limits';
import { edgeBanPage, edgeUserAgentPage, rateLimited, unauthorized } from './platform-errors';

/** How a caller may authenticate: the bot token (`Bot <token>`) or a user's OAuth2 access token (`Bearer <token>`). */
export type AuthScheme = 'bot' | 'bearer';

/**
 * A platform route as the limiter sees it: its template, its bucket kind, its major parameter, and who
 * may call it (default: the bot only). `'none'` is for the token endpoint, which authenticates the
 * client from its body; its callers are limited per address, as the platform limits unauthenticated calls.
 */
export type RouteSpec = { name: string; kind: BucketKind; major?: string; auth?: readonly AuthScheme[] | 'none' };

/**
 * Who passed the gate, for the route's handler (`callerOf(res)`). `rateKey` names the caller's global
 * window: the bot's token as before, else a key that cannot collide with it.
 */
export type Caller =
  | { kind: 'bot'; rateKey: string }
  | { kind: 'user'; rateKey: string; grant: OAuthGrant }
  | { kind: 'anonymous'; rateKey: string };

const BOT_ONLY: readonly AuthScheme[] = ['bot'];

/** All member-role changes of a guild share one bucket, whatever the method, member or role. */
const ROLE_BUCKET_ROUTE = 'member-roles';

/**
 * Runs before every platform route, in the platform's order: the invalid-request ban (at the edge), the
 * caller's token, the global per-token window, a shared limit on the resource, then the route's bucket. Every answer carries the bucket's headers.
 * The bot shares each bucket with nobody; other callers get their own window of it (same hash), as the
 * platform counts a bucket per token, so a signed-in user can never spend the bot's requests.
 */
export function gate(state: EmulatorState, route: RouteSpec): RequestHandler {
  const bucketRoute = route.kind === 'roles' ? ROLE_BUCKET_ROUTE : route.name;
  const auth = route.auth ?? BOT_ONLY;
  return async (req, res, next) => {
    state.counters.request(route.name);
    res.once('finish', () => state.counters.status(res.statusCode));
    const latency = state.latencyMs;
    if (latency > 0) await sleep(latency);

    if (!isClientUserAgent(req.get('user-agent'))) {
      // The edge refuses it before the API sees it: no API headers, not an invalid request of the API's.
      res.status(403).type('text/html; charset=UTF-8').send(edgeUserAgentPage());
      return;
    }
    const now = state.now();
    const caller = identify(state, req, auth);
    const major = route.major ? String(req.params[route.major] ?? '') : '';
    const ban = state.limits.banRemaining(now);
    if (ban > 0) {
      // The edge answers before the API: none of the API's headers, not counted again.
      state.counters.bannedResponse();
      sendEdgeBan(res, ban);
      return;
    }
    const owner = caller === undefined || caller.kind === 'bot' ? undefined : caller.rateKey;
    const bucket = state.limits.bucket(route.kind, bucketRoute, major, now, owner);
    res.setHeader('X-RateLimit-Bucket', bucket.hash);
    if (!caller) {
      writeWindow(res, bucket.window.peek(now), now);
      throw unauthorized();
    }
    const admission = state.limits.admit(caller.rateKey, bucket, now);
    writeWindow(res, admission.bucket, now);
    if (!admission.allowed) {
      state.counters.rateLimited(admission.scope);
      throw limited(res, admission.retryAfterMs, admission.scope);
    }
    res.locals.caller = caller;
    next();
  };
}

/**
 * The docs (reference, "User Agent"): "Clients using the HTTP API must provide a valid User Agent which
 * specifies information about the client library and version in the following format: `DiscordBot ($url,
 * $versionNumber)`", and requests without one "may be blocked and return a Cloudflare error". Anything may
 * follow the parenthesis (discord.js appends its runtime).
 */
export function isClientUserAgent(agent: string | undefined): boolean {
  return agent !== undefined && /^DiscordBot \([^,()\s]+, [^,()]+\)/.test(agent);
}

/** The caller the gate admitted; only for handlers mounted behind `gate()`. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf() used on a route without gate()');
  return caller;
}

/** Undefined when the route wants a token and the request has none that is valid for it. */
function identify(state: EmulatorState, req: Request, auth: readonly AuthScheme[] | 'none'): Caller | undefined {
  if (auth === 'none')
    return { kind: 'anonymous', rateKey: `address ${req.ip ?? req.socket.remoteAddress ?? 'unknown'}` };
  const header = req.get('authorization') ?? '';
  if (auth.includes('bot') && header === `Bot ${state.botToken}`) return { kind: 'bot', rateKey: state.botToken };
  if (auth.includes('bearer') && header.startsWith('Bearer ')) {
    const token = header.slice('Bearer '.length);
    const grant = state.oauth.accessGrant(token);
    if (grant) return { kind: 'user', rateKey: `Bearer ${token}`, grant };
  }
  return undefined;
}

/**
 * Counts 401/403/429 answers of platform routes toward the invalid-request ban (429s of scope
 * `shared` excepted, as the platform's docs say; the ban's own answers never get here), then hands the error on.
 */
export function countInvalid(state: EmulatorState): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    const status = err instanceof AppError ? err.status : 500;
    const invalid = status === 401 || status === 403 || status === 429;
    if (invalid && res.getHeader('X-RateLimit-Scope') !== 'shared') {
      state.limits.recordInvalid(state.now());
      state.counters.invalid();
    }
    next(err);
  };
}

function writeWindow(res: Response, w: WindowState, now: number): void {
  res.setHeader('X-RateLimit-Limit', String(w.limit));
  res.setHeader('X-RateLimit-Remaining', String(w.remaining));
  res.setHeader('X-RateLimit-Reset', ((now + w.resetAfterMs) / 1000).toFixed(3));
  res.setHeader('X-RateLimit-Reset-After', (w.resetAfterMs / 1000).toFixed(3));
}

/**
 * Retry-After is whole seconds rounded up, as the platform sends it; the body has the exact value. For
 * scope `shared` the bucket's own headers stay (its Reset-After is shorter than retry_after, as in the
 * docs' example: the resource, not the caller's bucket, is what has to cool down).
 */
function limited(res: Response, retryAfterMs: number, scope: Scope): AppError {
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  res.setHeader('X-RateLimit-Scope', scope);
  if (scope === 'global') res.setHeader('X-RateLimit-Global', 'true');
  return rateLimited(retryAfterMs, scope);
}

/**
 * The invalid-request ban as the platform's edge (Cloudflare) answers it: 429 with an HTML page (error
 * 1015), a Retry-After in whole seconds, and no X-RateLimit-* header, since the API never saw the request.
 */
function sendEdgeBan(res: Response, banMs: number): void {
  const seconds = Math.max(1, Math.ceil(banMs / 1000));
  res.status(429).setHeader('Retry-After', String(seconds));
  res.type('text/html; charset=UTF-8').send(edgeBanPage(seconds));
}
