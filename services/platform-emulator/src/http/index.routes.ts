import { randomBytes } from 'node:crypto';
import { Router, type Request } from 'express';
import type { EmulatorState } from '../emulator-state';
import { pageHeaders } from './html';
import { indexPage } from './index-page';

/** GET /api and /api/v10 with no route: the platform answers 404, a person trying the printed URL wants a pointer. */
export type ApiPointer = { message: string; api_base: string; docs: string };

/**
 * The emulator's own front door: an index page at `/`, and a short JSON pointer at `/api` and
 * `/api/v10` (GET only; every other path under /api/v10 keeps the platform's own 404).
 */
export function indexRouter(state: EmulatorState): Router {
  const router = Router();

  router.get('/', (_req, res) => {
    const nonce = randomBytes(16).toString('base64');
    res.status(200).set(pageHeaders(nonce)).send(indexPage(state, nonce));
  });

  router.get(['/api', '/api/v10'], (req, res) => {
    const origin = originOf(req);
    res.json({
      message:
        'Platform emulator: the platform API (v10) is under /api/v10, e.g. GET /api/v10/users/@me with Authorization: Bot <token>. This path itself is no route.',
      api_base: `${origin}/api/v10`,
      docs: `${origin}/`,
    } satisfies ApiPointer);
  });

  return router;
}

/** The address the caller used (the emulator listens on loopback; the Host header is only echoed back as JSON). */
function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
