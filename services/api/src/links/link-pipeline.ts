import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { LinkContext } from '@rolelink/db/links';
import { inputParser, presetRoute, routeNotFound, type RequestObserver } from '@rolelink/runtime';
import type { LinkAuth, LinkPathParams, authenticator } from './link-auth';
import { compileRoutes, decodeParam, findRoute, type CompiledRoute, type LinkRoute } from './link-route';

const MOUNT_TEMPLATE = '/api/role-link/:guildId/:roleId';
/** What the request log and the metrics name for a request no route took: the mount (a 401, a 429, a 404). */
const IN_MOUNT_TEMPLATE = `${MOUNT_TEMPLATE}/*`;
/** The mount as Express matched it: case-insensitive, one trailing slash allowed, the rest after a '/'. */
const MOUNT = /^\/api\/role-link\/([^/]+)\/([^/]+)(?:\/$)?(?=\/|$)/i;

/** A step run after authentication on every request of the mount: throws (or rejects with) its refusal. */
export type LinkStep = (res: Response, link: LinkContext) => void | Promise<void>;

/** The Idempotency-Key step (idempotency.ts): true when it answered the request itself (a replay). */
export type IdempotencyStep = (req: Request, res: Response, auth: LinkAuth) => false | Promise<boolean>;

export type LinkPipelineOptions = {
  /** The Express app whose request and response (app.request, app.response) the pipeline serves on. */
  app: Express;
  /** The app's per-request observers, in its order: request id, request log, metrics. */
  observers: RequestObserver[];
  authenticate: ReturnType<typeof authenticator>;
  /** After authentication, before the route: the per-link rate limit. */
  rateLimit?: LinkStep;
  idempotency: IdempotencyStep;
  /** In matching order: the first route whose path and method match takes the request. */
  routes: readonly LinkRoute[];
  /** The app's error middleware: every error answer goes through the one AppError serializer. */
  errors: ErrorRequestHandler;
};

export type LinkPipeline = {
  /**
   * Serves a request of `/api/role-link/:guildId/:roleId/*` completely and returns true; returns false,
   * touching nothing, for any other path, or a request and response that do not inherit the app's
   * (Express gives them its own and calls this again).
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** The table's routes, method (lower case) and full template, for tests that walk every route. */
  routes: { method: string; path: string }[];
};

/**
 * The one request pipeline of the User Management API's link routes (docs/architecture.md, "The link
 * pipeline"), called by the server's listener and by the Express app's first middleware alike. For each
 * request: the observers, then the route looked up in the table, then authentication (from memory when
 * the route allows it: `auth: 'remembered'`), the rate limit, 404 or OPTIONS for a path no route takes,
 * then the route's own steps (link check, input, body, Idempotency-Key) and its handler, which gets
 * a typed context. Every failure is answered by the app's error middleware, after the fresh read an
 * unsettled remembered request still owes (LinkAuth.confirmed), so the order of the checks holds.
 */
export function linkPipeline(opts: LinkPipelineOptions): LinkPipeline {
  const { request, response } = opts.app;
  const routes = compileRoutes(MOUNT_TEMPLATE, opts.routes);
  const parsers = new Map(routes.map((r) => [r, inputParser(r.input)]));

  const answer = (err: unknown, req: Request, res: Response): void => {
    try {
      opts.errors(err, req, res, () => undefined);
    } catch (e) {
      res.destroy(e as Error);
    }
  };

  const run = async (req: Request, res: Response, params: LinkPathParams, inMount: string): Promise<void> => {
    const found = findRoute(routes, req.method, inMount.split('/').slice(1));
    const route = found.route;
    let dispatched = false;
    presetRoute(req, () => (dispatched ? route!.template : IN_MOUNT_TEMPLATE));
    for (const observe of opts.observers) observe(req, res);
    let auth: LinkAuth | undefined;
    try {
      auth = await opts.authenticate(req, res, params, route?.auth === 'remembered');
      const limited = opts.rateLimit?.(res, auth.link);
      if (limited) await limited;
      if (!route) {
        if (req.method === 'OPTIONS' && found.allow.length) return allowed(res, found.allow);
        throw routeNotFound(req);
      }
      dispatched = true;
      await dispatch(route, { ...params, ...found.params }, req, res, auth);
    } catch (err) {
      answer(auth ? await auth.confirmed(err) : err, req, res);
    }
  };

  const dispatch = async (
    route: CompiledRoute,
    params: Record<string, string>,
    req: Request,
    res: Response,
    auth: LinkAuth,
  ): Promise<void> => {
    route.linkCheck?.(auth.link);
    const input = parsers.get(route)!({ params, query: route.input.query ? req.query : undefined });
    if (route.body) for (const read of route.body) await readBody(read, req, res);
    if (route.idempotent) {
      const replay = opts.idempotency(req, res, auth);
      if (replay && (await replay)) return;
    }
    if (route.auth === 'remembered')
      await route.handle({ req, res, input, how: auth.how, write: (write) => auth.write(write) });
    else await route.handle({ req, res, input, how: auth.how, link: auth.link });
  };

  return {
    routes: routes.map((r) => ({ method: r.method.toLowerCase(), path: r.template })),
    serve(req, res) {
      if (!Object.prototype.isPrototypeOf.call(request, req) || !Object.prototype.isPrototypeOf.call(response, res))
        return false;
      const q = req as Request;
      const path = q.path;
      const mount = MOUNT.exec(path);
      if (!mount) return false;
      const r = res as Response;
      // What Express's app.handle and router set before any middleware (no-ops when Express calls this).
      q.res = r;
      r.req = q;
      if (!r.locals) r.locals = Object.create(null) as Record<string, unknown>;
      if (q.originalUrl === undefined) q.originalUrl = q.url;
      const params = { guildId: decodeParam(mount[1]!), roleId: decodeParam(mount[2]!) };
      run(q, r, params, path.slice(mount[0].length) || '/').catch((err: unknown) => r.destroy(err as Error));
      return true;
    },
  };
}

/** A body-parser middleware as a promise: its error (a 400, 413, 415) is the request's. */
function readBody(read: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    // body-parser passes an Error or nothing ('route' and 'router' are for Express's own dispatch).
    void read(req, res, (err?: unknown) =>
      err ? reject(err instanceof Error ? err : new Error('body reader failed')) : resolve(),
    );
  });
}

/** Express's answer to an OPTIONS request of a path its routes know (router's sendOptionsResponse). */
function allowed(res: Response, methods: string[]): void {
  const allow = [...new Set(methods)].sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}
