import express, { Router, type Express, type RequestHandler } from 'express';
import type { RedisClient } from '@rolelink/queue';
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
import { requireUser } from './auth/access';
import { authRouter } from './auth/auth.routes';
import { csrfProtection } from './auth/csrf';
import type { OAuthClient } from './auth/oauth-client';
import { sessions } from './auth/session';
import type { DashboardContext } from './context';
import { auditRouter } from './routes/audit.routes';
import { configRouter } from './routes/config.routes';
import { guildsRouter } from './routes/guilds.routes';
import { linksRouter } from './routes/links.routes';
import { notificationsRouter } from './routes/notifications.routes';
import { meRouter } from './routes/me.routes';
import { overridesRouter } from './routes/overrides.routes';
import { eventsRouter } from './routes/events.routes';
import { securityHeaders } from './web-app/security-headers';
import { staticApp } from './web-app/static-app';

export type DashboardDeps = {
  logger: Logger;
  metrics: Metrics;
  /** Checks of this process for /readyz (none today); never PostgreSQL or Redis (healthRouter says why). */
  readiness: Record<string, ReadinessCheck>;
  /** True once shutdown began: /readyz answers 503 so traffic moves elsewhere first. */
  draining: () => boolean;
  ctx: DashboardContext;
  oauth: OAuthClient;
  /** Session store connection and key prefix (the service's QUEUE_PREFIX). */
  redis: RedisClient;
  prefix: string;
  sessionSecret: string;
  /** The origin admins open (DASHBOARD_PUBLIC_URL); https makes cookies Secure and adds HSTS. */
  publicOrigin: string;
  webDist: string;
};

/** Built from injected dependencies so tests build the same app main.ts runs. */
export function createApp(deps: DashboardDeps): Express {
  const { logger, metrics, ctx } = deps;
  const secure = deps.publicOrigin.startsWith('https:');
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.use(requestId());
  app.use(requestLog(logger));
  app.use(metrics.httpMiddleware());
  app.use(securityHeaders({ secure }));
  app.use(healthRouter({ checks: deps.readiness, draining: deps.draining }));
  app.get('/metrics', metrics.handler());

  const withSession: RequestHandler[] = [
    sessions({ redis: deps.redis, prefix: deps.prefix, secret: deps.sessionSecret, secure }),
    express.json({ limit: '100kb' }),
    csrfProtection(deps.publicOrigin),
  ];
  app.use('/auth', ...withSession, authRouter(deps.oauth, logger));

  const api = Router();
  api.use(...withSession, requireUser);
  api.use(
    meRouter(deps.oauth),
    guildsRouter(ctx),
    linksRouter(ctx),
    configRouter(ctx),
    auditRouter(ctx),
    notificationsRouter(ctx),
    overridesRouter(ctx),
    eventsRouter(ctx),
  );
  api.use(notFoundRoute());
  app.use('/dashboard-api', api);

  app.use(staticApp(deps.webDist));
  app.use(notFoundRoute());
  app.use(errorHandler(logger));
  return app;
}
