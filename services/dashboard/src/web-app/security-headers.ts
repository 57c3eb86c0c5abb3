import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Security headers on every answer (helmet). The CSP allows only the dashboard's own scripts, styles and
 * API; plugin pages may be framed from any https origin (embed_url must be https, spec 2.11, and its
 * origin is only known per link); the dashboard itself may not be framed by anyone.
 */
export function securityHeaders(opts: { secure: boolean }): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'https://cdn.discordapp.com'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        frameSrc: ['https:'],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        // Over plain http (local runs) an upgrade would send the page's own requests to https and break it.
        ...(opts.secure ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    xFrameOptions: { action: 'deny' },
    // The dashboard opens plugin links in new tabs; they must not learn the dashboard's URLs.
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: opts.secure ? { maxAge: 15552000, includeSubDomains: false } : false,
  });
}
