import express, { type Express } from 'express';
import { errorHandler, healthRouter, notFoundRoute, requestId, type Logger, type Metrics, type ReadinessCheck } from '@rolelink/runtime';
import { placeholderPage } from './placeholder-page';

export type DashboardDeps = {
  logger: Logger;
  metrics: Metrics;
  /** Dependency probes for /readyz, e.g. `{ db: () => pool.query('select 1'), redis: () => redis.ping() }`. */
  readiness: Record<string, ReadinessCheck>;
  /** True once shutdown began: /readyz answers 503 so traffic moves elsewhere first. */
  draining: () => boolean;
};

/** Built from injected dependencies so tests build the same app main.ts runs. */
export function createApp({ logger, metrics, readiness, draining }: DashboardDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.use(requestId());
  app.use(metrics.httpMiddleware());
  app.use(healthRouter({ checks: readiness, draining }));
  app.get('/metrics', metrics.handler());
  app.get('/', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-store').send(placeholderPage());
  });
  app.use(notFoundRoute());
  app.use(errorHandler(logger));
  return app;
}
