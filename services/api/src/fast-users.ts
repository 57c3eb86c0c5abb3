import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import typeis from 'type-is';
import { presetRoute } from '@rolelink/runtime';
import { allowRememberedAuth, confirmRememberedAuth } from './auth';
import { IDEMPOTENCY_HEADER } from './idempotency';
import type { SingleUserRoutes } from './routes/users.routes';

const PREFIX = '/api/role-link/';
const MOUNT_TEMPLATE = '/api/role-link/:guildId/:roleId';
/** What the request log and the metrics name: the route once it dispatched, the mount before (a 401, a 429). */
const ROUTE_TEMPLATE = `${MOUNT_TEMPLATE}/users/:userId`;
const IN_MOUNT_TEMPLATE = `${MOUNT_TEMPLATE}/*`;

export type FastUsersOptions = {
  /** The app's own middleware instances, in the app's order: request id, request log, metrics, authentication, rate limit. */
  before: RequestHandler[];
  /** The users route's chains (users.routes.ts), the same instances the Express route runs. */
  routes: SingleUserRoutes;
  /** The app's 404 for a chain that answered nothing (never happens today; Express would end there too). */
  notFound: RequestHandler;
  /** The app's error middleware: every error answer goes through the one AppError serializer. */
  errors: ErrorRequestHandler;
};

/**
 * POST and DELETE /api/role-link/:guildId/:roleId/users/:userId without a body, served before Express
 * (issue 24): a plugin's single-user writes are the API's hottest calls, and Express's per-request work
 * (prototype swaps, the router's layer walk and params merges, res.send's content negotiation, the
 * route tracker's property hooks) and its garbage were most of their CPU once the rest was cut.
 *
 * Only the framework differs: the request runs the very middleware and handler instances the Express app
 * runs for it (the same request id, log line, metrics, token look-up and memo, leased rate limiter,
 * idempotency, validation, batchers and error serializer), in the same order, over the node:http request
 * and response with the handful of Express members they use (below). Answers are byte for byte the
 * Express route's (fast-users.int.test.ts compares them).
 *
 * Returns false, touching nothing, for every request it does not take; the caller hands those to Express:
 * another method (HEAD, GET, PUT…), a body (content-length other than 0, transfer-encoding, or a content-type), a query
 * string, percent-encoding, a path of another shape or case, a trailing slash, `/users/upload`.
 */
export function fastUsers(opts: FastUsersOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const method = req.method;
    if (method !== 'POST' && method !== 'DELETE') return false;
    const headers = req.headers;
    if (headers['transfer-encoding'] !== undefined) return false;
    const length = headers['content-length'];
    if (length !== undefined && length !== '0') return false;
    // A typed empty body is a body to Express's parsers (JSON's `{}` at length 0): theirs to read.
    if (headers['content-type'] !== undefined) return false;
    const url = req.url;
    if (url === undefined || !url.startsWith(PREFIX)) return false;
    // Express decodes percent-escapes and matches case-insensitively and with a trailing slash: such
    // requests, rare from a client, are left to it rather than repeating its rules here.
    if (url.includes('%') || url.includes('?') || url.includes('#')) return false;
    const parts = url.slice(PREFIX.length).split('/');
    if (parts.length !== 4 || parts[2] !== 'users') return false;
    const [guildId, roleId, , userId] = parts as [string, string, string, string];
    if (!guildId || !roleId || !userId || userId === 'upload') return false;
    const response = shimResponse(res);
    // Every success of these chains is a guarded list write (auth.ts), except an idempotent replay.
    if (headers[IDEMPOTENCY_HEADER] === undefined) allowRememberedAuth(response);
    serve(opts, opts.routes[method], shimRequest(req, guildId, roleId, userId), response);
    return true;
  };
}

/** The Express request members the chains read: get(), is(), params, query, body, baseUrl, path (and id, set by requestId()). */
function shimRequest(req: IncomingMessage, guildId: string, roleId: string, userId: string): Request {
  const r = req as IncomingMessage & Record<string, unknown>;
  r.get = getHeader;
  r.is = is;
  r.params = { guildId, roleId, userId };
  r.query = {};
  r.body = undefined;
  // Inside the link router, as Express sets them: the mount's matched text and the rest.
  r.baseUrl = `${PREFIX}${guildId}/${roleId}`;
  r.path = `/users/${userId}`;
  return r as unknown as Request;
}

/** The Express response members the chains use: locals, status(), set(), json(). */
function shimResponse(res: ServerResponse): Response {
  const r = res as ServerResponse & Record<string, unknown>;
  r.locals = Object.create(null) as Record<string, unknown>;
  r.status = status;
  r.set = set;
  r.json = json;
  return r as unknown as Response;
}

/** Express's req.get(). */
function getHeader(this: IncomingMessage, name: string): string | string[] | undefined {
  const lc = name.toLowerCase();
  if (lc === 'referer' || lc === 'referrer') return this.headers.referrer ?? this.headers.referer;
  return this.headers[lc];
}

/** Express's req.is(): type-is over the request, with the types as an array or as arguments. */
function is(this: IncomingMessage, types: string | string[], ...rest: string[]): string | false | null {
  return typeis(this, Array.isArray(types) ? types : [types, ...rest]);
}

function status(this: ServerResponse, code: number): ServerResponse {
  this.statusCode = code;
  return this;
}

/** Express's res.set(field, value) for the headers these chains set (never Content-Type). */
function set(this: ServerResponse, field: string, value: unknown): ServerResponse {
  this.setHeader(field, Array.isArray(value) ? value.map(String) : String(value));
  return this;
}

/** Express's res.json() as it answers these routes: the same headers, in the same order, and body. */
function json(this: ServerResponse, body: unknown): ServerResponse {
  const text = JSON.stringify(body);
  if (this.getHeader('Content-Type') === undefined) this.setHeader('Content-Type', 'application/json; charset=utf-8');
  this.setHeader('Content-Length', String(Buffer.byteLength(text, 'utf8')));
  this.end(text, 'utf8');
  return this;
}

/** Runs `before`, then the route's chain, as Express's router would: next(err) goes to the error middleware. */
function serve(opts: FastUsersOptions, route: RequestHandler[], req: Request, res: Response): void {
  let dispatched = false;
  presetRoute(req, () => (dispatched ? ROUTE_TEMPLATE : IN_MOUNT_TEMPLATE));
  const before = opts.before;
  let i = 0;
  let failed = false;
  const answer = (err: unknown): void => {
    try {
      opts.errors(err, req, res, () => undefined);
    } catch (e) {
      res.destroy(e as Error);
    }
  };
  const fail = (err: unknown): void => {
    if (failed) return; // as Express: one error answer (the error middleware itself never calls next)
    failed = true;
    // A request let through on remembered authentication answers an error only after a fresh check.
    void confirmRememberedAuth(res, err).then(answer);
  };
  const next: NextFunction = (err?: unknown) => {
    if (failed) return;
    // next('route') and next('router') leave the route and the link router: nothing after them matches.
    if (err === 'route' || err === 'router') i = before.length + route.length;
    else if (err) return fail(err);
    let handler: RequestHandler;
    if (i < before.length) handler = before[i++]!;
    else if (i - before.length < route.length) {
      dispatched = true;
      handler = route[i++ - before.length]!;
    } else if (i === before.length + route.length) {
      // Left the router unanswered, as Express would reach the app's 404: the app-level path is the whole one.
      i++;
      const r = req as unknown as Record<string, unknown>;
      r.baseUrl = '';
      r.path = req.url;
      handler = opts.notFound;
    } else return;
    try {
      const ret: unknown = handler(req, res, next);
      // Express 5 passes a handler's rejected promise to next(err) as well.
      if (ret instanceof Promise) ret.catch(next);
    } catch (e) {
      next(e);
    }
  };
  next();
}
