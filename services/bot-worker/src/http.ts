import { createServer, type Server } from 'node:http';
import express from 'express';
import { healthRouter, type Metrics, type ReadinessCheck } from '@rolelink/runtime';

/** /healthz (liveness), /readyz (PostgreSQL, Redis; 503 while draining) and /metrics (Prometheus). */
export function createHttpServer(options: { checks: Record<string, ReadinessCheck>; draining: () => boolean; metrics: Metrics }): Server {
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRouter({ checks: options.checks, draining: options.draining }));
  app.get('/metrics', options.metrics.handler());
  return createServer(app);
}
