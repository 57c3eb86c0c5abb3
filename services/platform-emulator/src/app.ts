import { errorHandler, notFoundRoute, silentLogger, type Logger } from '@rolelink/runtime';
import express from 'express';
import type { EmulatorState } from './emulator-state';
import { controlRouter } from './http/control.routes';
import { recordExchanges } from './http/exchange-recorder';
import { indexRouter } from './http/index.routes';
import { oauthRouter } from './http/oauth.routes';
import { platformRouter } from './http/platform.routes';

/**
 * The emulator's HTTP app: the platform API under /api/v10, its OAuth2 sign-in page at /oauth2 (the
 * platform's own path, so a client differs only by base URL), the control API under /_emulator, and
 * an index page at / (with a pointer at /api and /api/v10) saying where each of them is.
 */
export function createEmulatorApp(state: EmulatorState, logger: Logger = silentLogger()): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // The platform sends no ETags; without this, repeated GETs could turn into 304s.
  app.set('etag', false);
  // First, so a conformance test also sees calls to another version or no route at all.
  app.use('/api', recordExchanges(state.exchangeListeners));
  // Before the platform router: GET /api/v10 itself is the pointer, not the platform's 404.
  app.use(indexRouter(state));
  app.use('/_emulator', controlRouter(state));
  app.use('/api/v10', platformRouter(state));
  app.use('/oauth2', oauthRouter(state));
  app.use(notFoundRoute());
  app.use(errorHandler(logger));
  return app;
}
