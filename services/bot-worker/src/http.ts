import { createServer, type Server } from 'node:http';
import express from 'express';
import { healthRouter, requestId, requestLog, type Logger, type Metrics, type ReadinessCheck } from '@rolelink/runtime';

/** /healthz (liveness), /readyz (PostgreSQL, Redis; 503 while draining) and /metrics (Prometheus). */
export function createHttpServer(options: { checks: Record<string, ReadinessCheck>; draining: () => boolean; metrics: Metrics; logger: Logger }): Server {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(requestLog(options.logger));
  app.use(healthRouter({ checks: options.checks, draining: options.draining }));
  app.get('/metrics', options.metrics.handler());
  return createServer(app);
}
