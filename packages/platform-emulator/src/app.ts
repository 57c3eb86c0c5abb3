import { errorHandler, notFoundRoute, silentLogger, type Logger } from '@rolelink/runtime';
import express from 'express';
import type { EmulatorState } from './emulator-state';
import { controlRouter } from './http/control.routes';
import { platformRouter } from './http/platform.routes';

/** The emulator's HTTP app: the platform API under /api/v10 and the control API under /_emulator. */
export function createEmulatorApp(state: EmulatorState, logger: Logger = silentLogger()): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // The platform sends no ETags; without this, repeated GETs could turn into 304s.
  app.set('etag', false);
  app.use('/_emulator', controlRouter(state));
  app.use('/api/v10', platformRouter(state));
  app.use(notFoundRoute());
  app.use(errorHandler(logger));
  return app;
}
