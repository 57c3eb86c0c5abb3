import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';
import { openApiDocument } from './document';

/**
 * GET /openapi.json and the interactive reference at GET /reference (Swagger UI). Swagger UI comes from
 * swagger-ui-dist, served from this process (no CDN): the most used OpenAPI viewer, shipped as plain
 * static files, and it runs under a CSP with scripts and styles from this origin only (Redoc and
 * Scalar inject <style> elements and would need 'unsafe-inline'). Its icons are data: images.
 * openapi-reference.browser.int.test.ts renders it in Chromium and fails on any CSP violation.
 */
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const PUBLIC_DIR = path.join(__dirname, 'public');

const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: path.join(SWAGGER_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'init.js': { file: path.join(PUBLIC_DIR, 'init.js'), type: 'text/javascript; charset=utf-8' },
};

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
  return res.set('Content-Security-Policy', CSP).set('X-Content-Type-Options', 'nosniff').set('Referrer-Policy', 'no-referrer');
}

export function openApiRoutes(): Router {
  const r = Router();
  const page = readFileSync(path.join(PUBLIC_DIR, 'reference.html'), 'utf8');
  const assets = new Map(Object.entries(ASSETS).map(([name, a]) => [name, { body: readFileSync(a.file), type: a.type }]));

  r.get('/openapi.json', (_req, res) => {
    secure(res).set('Cache-Control', 'no-cache').json(openApiDocument());
  });
  r.get('/reference', (_req, res) => {
    secure(res).set('Cache-Control', 'no-cache').type('html').send(page);
  });
  r.get('/reference/:asset', (req, res, next) => {
    const asset = assets.get(req.params.asset);
    if (!asset) return next();
    secure(res).set('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  return r;
}
