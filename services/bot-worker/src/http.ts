import express, { type Express } from 'express';
import { healthRouter, requestId, requestLog, type Logger, type Metrics, type ReadinessCheck } from '@rolelink/runtime';

/**
 * The worker's only HTTP: /healthz (liveness), /readyz (503 while draining or until the job schedulers are first registered; not tied to later PostgreSQL or Redis outages) and
 * /metrics (Prometheus). main.ts listens with the shared serve(), like every service.
 */
export function createHttpApp(options: {
  checks: Record<string, ReadinessCheck>;
  draining: () => boolean;
  metrics: Metrics;
  logger: Logger;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(requestLog(options.logger));
  app.use(healthRouter({ checks: options.checks, draining: options.draining }));
  app.get('/metrics', options.metrics.handler());
  return app;
}
