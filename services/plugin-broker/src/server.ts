import express, { type Express } from 'express';
import { errorHandler, healthRouter, notFoundRoute, requestId, requestLog, type Logger, type Metrics, type ReadinessCheck } from '@rolelink/runtime';

export type BrokerServerDeps = {
  logger: Logger;
  metrics: Metrics;
  readiness: Record<string, ReadinessCheck>;
  draining: () => boolean;
};

/** The broker has no public API: only /healthz, /readyz and /metrics for the platform running it. */
export function createBrokerServer(deps: BrokerServerDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(requestLog(deps.logger));
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  app.get('/metrics', deps.metrics.handler());
  app.use(notFoundRoute());
  app.use(errorHandler(deps.logger));
  return app;
}
