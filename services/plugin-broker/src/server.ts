import express, { type Express } from 'express';
import { internalRoutes, type InternalRoutesDeps } from './internal-routes';
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

export type BrokerServerDeps = {
  logger: Logger;
  metrics: Metrics;
  readiness: Record<string, ReadinessCheck>;
  draining: () => boolean;
  /** The plugin calls a caller waits for (internal-routes.ts). */
  internal: InternalRoutesDeps;
};

/**
 * The broker has no public API: /healthz, /readyz and /metrics for the platform running it, and the
 * token-guarded /internal routes for the dashboard and the CLI (kept from everyone else by its NetworkPolicy).
 */
export function createBrokerServer(deps: BrokerServerDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(requestLog(deps.logger));
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  app.get('/metrics', deps.metrics.handler());
  app.use(internalRoutes(deps.internal));
  app.use(notFoundRoute());
  app.use(errorHandler(deps.logger));
  return app;
}
