import http, { type RequestListener, type ServerOptions } from 'node:http';
import express, { type Express } from 'express';
import type { Pool } from 'pg';
import {
  errorHandler,
  healthRouter,
  notFoundRoute,
  requestId,
  requestLog,
  type Logger,
  type Metrics,
  type ReadinessCheck,
} from '@rolelink/runtime';
import { authenticate } from './auth';
import { fastUsers } from './fast-users';
import { openApiRoutes } from './openapi/openapi.routes';
import { perTokenRateLimit, type RateLimitOptions } from './rate-limit';
import { uploadsRoutes } from './routes/uploads.routes';
import { usersRoutes } from './routes/users.routes';
import type { SyncNotifier } from '@rolelink/queue';

export type ApiDeps = {
  pool: Pool;
  sync: SyncNotifier;
  logger: Logger;
  metrics?: Metrics;
  readiness?: Record<string, ReadinessCheck>;
  draining?: () => boolean;
  /** Absent: no rate limit (API_RATE_LIMIT=off, and tests that are not about it). */
  rateLimit?: Omit<RateLimitOptions, 'logger'>;
};

export type Api = {
  /** The routes (listed from its router by test/support/routes.ts) and every request the fast path does not take. */
  app: Express;
  /**
   * What the server runs (main.ts): POST and DELETE /users/:userId without a body go to the fast path
   * (fast-users.ts), which runs the same middleware and handler instances as `app`; everything else to `app`.
   * Every test serves this too (test/support/api.ts), so tests take the path production takes.
   */
  listener: RequestListener;
  /**
   * For the server that serves `listener` (main.ts): requests and responses constructed with Express's
   * members already inherited, so neither path swaps prototypes per request. Optional for correctness
   * (without them both paths swap, as Express does); V8 keeps its optimized shapes only with them.
   */
  serverOptions: ServerOptions;
};

/** The User Management API (spec 4.1), built from injected dependencies so tests build the same app. */
export function createApi(deps: ApiDeps): Api {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One instance of each, shared by the Express app and the fast path: one token memo and look-up, one
  // leased rate-limit budget, one batcher per kind (so both paths' writes of a link go in one statement).
  const before = [requestId(), requestLog(deps.logger), ...(deps.metrics ? [deps.metrics.httpMiddleware()] : [])];
  const inLink = [
    authenticate(deps.pool),
    ...(deps.rateLimit ? [perTokenRateLimit({ ...deps.rateLimit, logger: deps.logger })] : []),
  ];
  const notFound = notFoundRoute();
  // The public API's validation errors keep their documented `details` only: its `errors` key is the
  // shrink hold's object (spec 4.1 rule 6), and plugins decode it as that.
  const errors = errorHandler(deps.logger, { fieldErrors: false });
  for (const m of before) app.use(m);

  const link = express.Router({ mergeParams: true });
  // Authentication, then the rate limit: the budget belongs to the link the token opened and its plan sets the limit.
  for (const m of inLink) link.use(m);
  // Upload routes first: `/users/upload` must not be read as a user id. Registered on `link` itself, not
  // as nested routers: each nested router a request passes costs a params merge and a restore (issue 24).
  uploadsRoutes(deps, link);
  const singleUser = usersRoutes(deps, link);
  // First after the per-request middleware: every API call would otherwise walk the routers below (health,
  // metrics, OpenAPI) before reaching it, and none of their paths starts with /api/role-link/.
  app.use('/api/role-link/:guildId/:roleId', link);

  if (deps.metrics) app.get('/metrics', deps.metrics.handler());
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  // The API's OpenAPI document and its reference page, unauthenticated like the health routes.
  app.use(openApiRoutes());

  app.use(notFound);
  app.use(errors);

  const fast = fastUsers({ app, before: [...before, ...inLink], routes: singleUser, notFound, errors });
  return {
    app,
    serverOptions: expressServerOptions(app),
    listener: (req, res) => {
      if (!fast(req, res)) app(req, res);
    },
  };
}

/** Node's request and response classes, extended to inherit the app's `request` and `response` (what app.handle swaps in). */
function expressServerOptions(app: Express): ServerOptions {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse<Req extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Req> {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}
