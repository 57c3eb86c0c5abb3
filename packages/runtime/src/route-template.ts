import type { Request } from 'express';

/** Label for requests no route matched: never the raw path, which would make cardinality unbounded. */
export const UNMATCHED_ROUTE = '(unmatched)';
/** Suffix of a mount's template for a request answered inside the mount by middleware, not a route (a 401 of the auth middleware, a static file). */
const IN_MOUNT = '/*';

// The reader is kept on the request itself, not in a WeakMap keyed by it: one long-lived table that every
// request passes through kept finished requests through the young-generation collections (serve.ts, InFlight).
const TRACKED = Symbol('route template reader');
type Tracked = { [TRACKED]?: () => string };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Puts `:name` back where a mount path's parameters were: `/api/role-link/1/2` with `{ guildId: '1',
 * roleId: '2' }` reads `/api/role-link/:guildId/:roleId`. The router keeps only the matched text of a
 * mount (`req.baseUrl`), so the names are restored from the params it set just before, in order; names
 * the parent template already holds are skipped (a router with mergeParams sees its parent's too).
 */
function templatize(suffix: string, params: Record<string, unknown>, parentTemplate: string): string {
  const keys = Object.keys(params).filter((k) => !parentTemplate.split('/').includes(`:${k}`));
  return suffix
    .split('/')
    .map((segment) => {
      const key = keys[0];
      if (segment === '' || key === undefined || decode(segment) !== String(params[key])) return segment;
      keys.shift();
      return `:${key}`;
    })
    .join('/');
}

/**
 * Tracks the route template of a request (`/api/role-link/:guildId/:roleId/users`) and returns a
 * function that reads it once the response is done. A request no route dispatched reads as the last
 * mount it entered (`/api/role-link/:guildId/:roleId/*`), or UNMATCHED_ROUTE outside any mount. Call it
 * from an app-level middleware; calling it again for the same request returns the same reader, so the
 * metrics and the request log share one capture instead of overwriting each other's hooks.
 *
 * The router sets `req.baseUrl` when it enters a mount and `req.route` when a route dispatches; both are
 * observed as they are set, because the router restores baseUrl when an error leaves a sub-router,
 * before the response finishes.
 */
export function trackRoute(req: Request): () => string {
  const known = (req as Tracked)[TRACKED];
  if (known) return known;

  let baseUrl: string = req.baseUrl ?? '';
  let mount: string | undefined;
  // Actual base URL → its template; a parent is always set before the mounts below it.
  const templates = new Map<string, string>([[baseUrl, baseUrl]]);
  const templateOf = (value: string): string => {
    const cached = templates.get(value);
    if (cached !== undefined) return cached;
    let parent = '';
    for (const key of templates.keys()) {
      if (key.length > parent.length && value.startsWith(key) && value[key.length] === '/') parent = key;
    }
    const parentTemplate = templates.get(parent) ?? parent;
    const template = parentTemplate + templatize(value.slice(parent.length), req.params ?? {}, parentTemplate);
    templates.set(value, template);
    return template;
  };
  Object.defineProperty(req, 'baseUrl', {
    configurable: true,
    enumerable: true,
    get: () => baseUrl,
    set: (value: string) => {
      // Longer means entering a mount; shorter is the router restoring the parent's on the way out.
      const entering = (value ?? '').length > baseUrl.length;
      baseUrl = value ?? '';
      const template = templateOf(baseUrl);
      if (entering) mount = template;
    },
  });

  let route: unknown = (req as { route?: unknown }).route;
  let pattern: string | undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: unknown) => {
      route = value;
      const path = (value as { path?: string | RegExp } | undefined)?.path;
      if (path !== undefined) pattern = `${templateOf(baseUrl)}${path}` || '/';
    },
  });

  const read = () => pattern ?? (mount ? `${mount}${IN_MOUNT}` : UNMATCHED_ROUTE);
  (req as Tracked)[TRACKED] = read;
  return read;
}

/**
 * For a request answered outside Express's router (the API's link pipeline, services/api/src/links): the
 * reader trackRoute() will return for it, so the request log and the metrics label it as the Express
 * route would, without the property hooks above.
 */
export function presetRoute(req: object, read: () => string): void {
  (req as Tracked)[TRACKED] = read;
}
