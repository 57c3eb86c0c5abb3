import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
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
  /** The Express app whose request and response prototypes (app.request, app.response) the fast path uses. */
  app: Express;
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
 * POST and DELETE /api/role-link/:guildId/:roleId/users/:userId without a body, dispatched before
 * Express's router (issue 24): a plugin's single-user writes are the API's hottest calls, and the
 * router's per-request work (its layer walk over every mount, params merges and restores, the route
 * tracker's property hooks) and its garbage were most of their CPU once the rest was cut.
 *
 * Only the dispatch differs. The request and response are Express's own: they inherit `app.request` and
 * `app.response`, either from the server's classes (apiServerOptions(), which main.ts serves: no swap per
 * request) or by the prototype swap Express's app.handle does (any other server, e.g. supertest's). The
 * request runs the very middleware and handler instances the Express route runs (request id, log line,
 * metrics, token look-up and memo, leased rate limiter, idempotency, validation, batchers, error
 * serializer), in the same order, with `req.url`, `baseUrl`, `originalUrl` and `params` as Express's
 * router sets them inside the link mount. fast-users.int.test.ts compares both paths' answers byte for byte.
 *
 * Returns false, touching nothing, for every request it does not take; the caller hands those to Express:
 * another method (HEAD, GET, PUT…), a body (content-length other than 0, transfer-encoding, or a content-type), a query
 * string, percent-encoding, a path of another shape or case, a trailing slash, `/users/upload`.
 */
export function fastUsers(opts: FastUsersOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { request, response } = opts.app;
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
    // What app.handle does first: Express's members by inheritance (a no-op for apiServerOptions()' classes).
    if (!Object.prototype.isPrototypeOf.call(request, req)) Object.setPrototypeOf(req, request);
    if (!Object.prototype.isPrototypeOf.call(response, res)) Object.setPrototypeOf(res, response);
    const q = req as Request;
    const r = res as Response;
    q.res = r;
    r.req = q;
    r.locals = Object.create(null) as Record<string, unknown>;
    // Inside the link mount, as Express's router leaves them: the mount's matched text in baseUrl, the rest in url.
    q.originalUrl = url;
    q.baseUrl = `${PREFIX}${guildId}/${roleId}`;
    q.url = `/users/${userId}`;
    q.params = { guildId, roleId, userId };
    // Every success of these chains is a guarded list write (auth.ts), except an idempotent replay.
    if (headers[IDEMPOTENCY_HEADER] === undefined) allowRememberedAuth(r);
    serve(opts, opts.routes[method], q, r);
    return true;
  };
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
    // Leaving the link mount, Express's router restores the whole URL before the app's error middleware.
    req.baseUrl = '';
    req.url = req.originalUrl;
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
      // Left the router unanswered, as Express would reach the app's 404: the router restores the whole URL.
      i++;
      req.baseUrl = '';
      req.url = req.originalUrl;
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
