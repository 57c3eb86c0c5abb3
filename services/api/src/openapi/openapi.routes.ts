import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';
import { openApiDocument } from './document';
import { INIT_JS, REFERENCE_HTML } from './reference-page';

/**
 * GET /openapi.json and the interactive reference at GET /reference (Swagger UI). Swagger UI comes from
 * swagger-ui-dist, served from this process (no CDN): the most used OpenAPI viewer, shipped as plain
 * static files, and it runs under a CSP with scripts and styles from this origin only (Redoc and
 * Scalar inject <style> elements and would need 'unsafe-inline'). Its icons are data: images.
 * openapi-reference.browser.int.test.ts renders it in Chromium and fails on any CSP violation.
 */
const ASSETS = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
} as const;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function secure(res: Response): Response {
  return res
    .set('Content-Security-Policy', CSP)
    .set('X-Content-Type-Options', 'nosniff')
    .set('Referrer-Policy', 'no-referrer');
}

export function openApiRoutes(): Router {
  const r = Router();
  // swagger-ui-dist is a production dependency of the API (installed beside it, never bundled). Its files
  // (1.5 MB) are read on the first request for them, not at start: most API processes never serve the page.
  const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  let assets: Map<string, { body: string | Buffer; type: string }> | null = null;
  const loadAssets = () => {
    assets = new Map<string, { body: string | Buffer; type: string }>(
      Object.entries(ASSETS).map(([name, a]) => [
        name,
        { body: readFileSync(path.join(swaggerDir, a.file)), type: a.type },
      ]),
    );
    assets.set('init.js', { body: INIT_JS, type: 'text/javascript; charset=utf-8' });
    return assets;
  };

  r.get('/openapi.json', (_req, res) => {
    secure(res).set('Cache-Control', 'no-cache').json(openApiDocument());
  });
  r.get('/reference', (req, res) => {
    // Express's routing is not strict, so /reference/ lands here too; there the page's relative asset URLs
    // would resolve under /reference/reference/ and the page stayed blank. Send the browser to /reference
    // instead. The Location is relative so the redirect also holds behind a proxy that mounts the API under a path.
    if (req.path.endsWith('/'))
      return res.redirect(301, '../reference' + (req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : ''));
    secure(res).set('Cache-Control', 'no-cache').type('html').send(REFERENCE_HTML);
  });
  r.get('/reference/:asset', (req, res, next) => {
    const asset = (assets ?? loadAssets()).get(req.params.asset);
    if (!asset) return next();
    secure(res).set('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  return r;
}
