import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

/** The dashboard package's root: the nearest package.json above this file, from src/web-app/ (tsx) or dist/ (`pnpm build`). */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

/** Where `pnpm --filter @rolelink/dashboard-web build` writes the front end (the image copies it to the same place). */
export const DEFAULT_WEB_DIST = path.join(packageRoot(__dirname), 'web', 'dist');

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Role Link dashboard</title></head>
<body><h1>The dashboard's front end is not built</h1>
<p>Run <code>pnpm --filter @rolelink/dashboard-web build</code> (the start and test scripts do this for you), then reload.</p></body></html>`;

/**
 * The built web app: hashed assets with long caching, and index.html for every other GET (the app's
 * own routes, e.g. /guilds/123), never cached so a new deploy is picked up at once.
 */
export function staticApp(dist: string): Router {
  const router = Router();
  router.use('/assets', express.static(path.join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use(express.static(dist, { index: false, maxAge: '1h' }));
  const indexFile = path.join(dist, 'index.html');
  let index: string | null = null;
  router.get(/.*/, (req, res, next) => {
    // A missing hashed asset is a 404, not the app's page (a stale tab asking for an old bundle).
    if (req.path.startsWith('/assets/')) return next();
    index ??= existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : null;
    res.set('Cache-Control', 'no-store');
    if (index === null) return void res.status(503).type('html').send(NOT_BUILT);
    res.type('html').send(index);
  });
  return router;
}
