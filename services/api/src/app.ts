import express, { type Express } from 'express';
import type { Pool } from 'pg';
import { errorHandler, healthRouter, notFoundRoute, requestId, requestLog, type Logger, type Metrics, type ReadinessCheck } from '@rolelink/runtime';
import { authenticate } from './auth';
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

/** The User Management API (spec 4.1), built from injected dependencies so tests build the same app. */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(requestLog(deps.logger));
  if (deps.metrics) app.use(deps.metrics.httpMiddleware());

  const link = express.Router({ mergeParams: true });
  link.use(authenticate(deps.pool));
  // After authentication: the budget belongs to the link the token opened and its plan sets the limit.
  if (deps.rateLimit) link.use(perTokenRateLimit({ ...deps.rateLimit, logger: deps.logger }));
  // Upload routes first: `/users/upload` must not be read as a user id. Registered on `link` itself, not
  // as nested routers: each nested router a request passes costs a params merge and a restore (issue 24).
  uploadsRoutes(deps, link);
  usersRoutes(deps, link);
  // First after the per-request middleware: every API call would otherwise walk the routers below (health,
  // metrics, OpenAPI) before reaching it, and none of their paths starts with /api/role-link/.
  app.use('/api/role-link/:guildId/:roleId', link);

  if (deps.metrics) app.get('/metrics', deps.metrics.handler());
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  // The API's OpenAPI document and its reference page, unauthenticated like the health routes.
  app.use(openApiRoutes());

  app.use(notFoundRoute());
  app.use(errorHandler(deps.logger));
  return app;
}
