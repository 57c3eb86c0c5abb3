import type { Express } from 'express';

/** One route an Express app serves: method and path template (`/guilds/:guildId/links`). */
export type AppRoute = { method: string; path: string };

/** The parts of router 2's layers this reads (express 5 keeps them as the router's own state). */
type Layer = {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
};

/**
 * Every route registered on an app, read from its router (nested routers included, their mount paths
 * joined), so a route added later is listed without anyone editing a test. Middleware that is not a
 * route (auth, static files) is not listed. A RegExp path is listed as its String() form, so a
 * caller must name it to skip it; an array path throws.
 */
export function listRoutes(app: Express): AppRoute[] {
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  return walk(router.stack, '');
}

function walk(stack: Layer[], prefix: string): AppRoute[] {
  const out: AppRoute[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const path = join(prefix, pathOf(layer.route.path));
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all') out.push({ method, path });
    } else if (layer.handle?.stack) {
      out.push(...walk(layer.handle.stack, layer.slash ? prefix : join(prefix, pathOf(layer.rawPath))));
    }
  }
  return out;
}

function pathOf(path: unknown): string {
  if (path instanceof RegExp) return String(path);
  if (typeof path !== 'string') throw new Error(`listRoutes reads string and RegExp paths only, not ${String(path)}`);
  return path;
}

const join = (a: string, b: string) => `${a}${b === '/' ? '' : b}` || '/';
