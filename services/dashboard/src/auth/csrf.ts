import { csrfSync } from 'csrf-sync';
import type { RequestHandler } from 'express';
import { AppError } from '@rolelink/runtime';

const { csrfSynchronisedProtection, generateToken } = csrfSync({
  getTokenFromRequest: (req) => req.get('x-csrf-token'),
});

/** The token the web app sends back as `X-CSRF-Token` (one per session, kept in the session). */
export const csrfToken = generateToken;

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence on every state-changing request, two layers: the browser's Origin (or Referer) must be
 * the dashboard's own, and the session's synchroniser token must come back in `X-CSRF-Token` (csrf-sync).
 * SameSite=Lax cookies are a third. Failures are the spec's 403 body, never the library's HTML.
 */
export function csrfProtection(publicOrigin: string): RequestHandler {
  return (req, res, next) => {
    if (SAFE.has(req.method)) return next();
    const origin = req.get('origin') ?? (req.get('referer') ? safeOrigin(req.get('referer')!) : undefined);
    if (origin !== undefined && origin !== publicOrigin)
      return next(new AppError(403, 'Cross-site request refused', 'csrf_origin'));
    csrfSynchronisedProtection(req, res, (err?: unknown) => {
      if (err) return next(new AppError(403, 'Invalid or missing CSRF token; reload the page', 'csrf'));
      next();
    });
  };
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
