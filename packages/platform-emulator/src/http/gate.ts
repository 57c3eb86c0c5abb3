import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@rolelink/runtime';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { EmulatorState } from '../emulator-state';
import type { WindowState } from '../fixed-window';
import type { BucketKind } from '../rate-limits';
import { rateLimited, unauthorized } from './platform-errors';

/** A platform route as the limiter sees it: its template, its bucket kind and its major parameter. */
export type RouteSpec = { name: string; kind: BucketKind; major?: string };

/** All member-role changes of a guild share one bucket, whatever the method, member or role. */
const ROLE_BUCKET_ROUTE = 'member-roles';

/**
 * Runs before every platform route, in the platform's order: the invalid-request ban, the bot token,
 * the global per-token window, then the route's bucket. Every answer carries the bucket's headers.
 */
export function gate(state: EmulatorState, route: RouteSpec): RequestHandler {
  const bucketRoute = route.kind === 'roles' ? ROLE_BUCKET_ROUTE : route.name;
  return async (req, res, next) => {
    state.counters.request(route.name);
    res.once('finish', () => state.counters.status(res.statusCode));
    const latency = state.latencyMs;
    if (latency > 0) await sleep(latency);

    const now = state.now();
    const major = route.major ? String(req.params[route.major] ?? '') : '';
    const bucket = state.limits.bucket(route.kind, bucketRoute, major, now);
    res.setHeader('X-RateLimit-Bucket', bucket.hash);

    const ban = state.limits.banRemaining(now);
    if (ban > 0) {
      writeWindow(res, bucket.window.peek(now), now);
      res.locals.banned = true;
      state.counters.bannedResponse();
      throw limited(res, ban, 'global');
    }
    if (req.get('authorization') !== `Bot ${state.botToken}`) {
      writeWindow(res, bucket.window.peek(now), now);
      throw unauthorized();
    }
    const admission = state.limits.admit(state.botToken, bucket, now);
    writeWindow(res, admission.bucket, now);
    if (!admission.allowed) {
      state.counters.rateLimited(admission.scope);
      throw limited(res, admission.retryAfterMs, admission.scope);
    }
    next();
  };
}

/**
 * Counts 401/403/429 answers of platform routes toward the invalid-request ban (429s of scope
 * `shared` and answers given during the ban itself excepted), then hands the error on.
 */
export function countInvalid(state: EmulatorState): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    const status = err instanceof AppError ? err.status : 500;
    const invalid = status === 401 || status === 403 || status === 429;
    if (invalid && res.getHeader('X-RateLimit-Scope') !== 'shared' && res.locals.banned !== true) {
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

/** Retry-After is whole seconds rounded up, as the platform sends it; the body has the exact value. */
function limited(res: Response, retryAfterMs: number, scope: 'user' | 'global'): AppError {
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  res.setHeader('X-RateLimit-Scope', scope);
  if (scope === 'global') res.setHeader('X-RateLimit-Global', 'true');
  return rateLimited(retryAfterMs, scope === 'global');
}
