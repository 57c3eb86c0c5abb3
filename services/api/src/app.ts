import http, { type RequestListener, type ServerOptions } from 'node:http';
import express, { type Express } from 'express';
import type { Pool } from 'pg';
import {
  errorHandler,
  healthRouter,
  notFoundRoute,
  requestId,
  requestLog,
  type RequestObserver,
  type Logger,
  type Metrics,
  type ReadinessCheck,
} from '@rolelink/runtime';
import { idempotent } from './idempotency';
import { authenticator } from './links/link-auth';
import { linkPipeline } from './links/link-pipeline';
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
  /**
   * The Express app: health, metrics, the OpenAPI routes, and, through its first middleware, the link
   * pipeline for `/api/role-link/*` (a request given to the app rather than to `listener`).
   */
  app: Express;
  /**
   * What the server runs (main.ts): a request of `/api/role-link/*` on the classes of `serverOptions` goes
   * straight to the link pipeline; everything else to `app`. Every test serves this too
   * (test/support/api.ts), so tests take the path production takes.
   */
  listener: RequestListener;
  /**
   * For the server that serves `listener` (main.ts): requests and responses constructed with Express's
   * members already inherited, so neither Express nor the link pipeline swaps prototypes per request.
   * Without them every request goes through `app` (which swaps, then calls the same pipeline).
   */
  serverOptions: ServerOptions;
  /** The link pipeline's routes (method in lower case, full path template): the routes `app`'s router does not list. */
  linkRoutes: { method: string; path: string }[];
};

/** The User Management API (spec 4.1), built from injected dependencies so tests build the same app. */
export function createApi(deps: ApiDeps): Api {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const observers: RequestObserver[] = [
    requestId(),
    requestLog(deps.logger),
    ...(deps.metrics ? [deps.metrics.httpMiddleware()] : []),
  ];
  // The public API's validation errors keep their documented `details` only: its `errors` key is the
  // shrink hold's object (spec 4.1 rule 6), and plugins decode it as that.
  const errors = errorHandler(deps.logger, { fieldErrors: false });
  // One pipeline for both ways in: one token memory and look-up, one leased rate-limit budget, one
  // batcher per kind (so every write of a link goes in one statement).
  const links = linkPipeline({
    app,
    observers,
    authenticate: authenticator(deps.pool),
    rateLimit: deps.rateLimit ? perTokenRateLimit({ ...deps.rateLimit, logger: deps.logger }) : undefined,
    idempotency: idempotent(deps.pool),
    // Upload routes first: `/users/upload` must not be read as a user id.
    routes: [...uploadsRoutes(deps), ...usersRoutes(deps)],
    errors,
  });

  // First: the pipeline runs the observers itself for the requests it takes.
  app.use((req, res, next) => {
    if (!links.serve(req, res)) next();
  });
  for (const observe of observers) app.use(observe);
  if (deps.metrics) app.get('/metrics', deps.metrics.handler());
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  // The API's OpenAPI document and its reference page, unauthenticated like the health routes.
  app.use(openApiRoutes());
  app.use(notFoundRoute());
  app.use(errors);

  return {
    app,
    serverOptions: expressServerOptions(app),
    listener: (req, res) => {
      if (!links.serve(req, res)) app(req, res);
    },
    linkRoutes: links.routes,
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
