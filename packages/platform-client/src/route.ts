/**
 * The rate-limit identity of a request, derived from its URL the way the platform documents buckets:
 * per route template and per top-level resource ("major parameter": a guild, channel or webhook id).
 * `routeKey` is the method plus the template with every id replaced; `major` is the resource id.
 */
export type RouteId = { routeKey: string; major: string };

const MAJOR = /\/(guilds|channels|webhooks)\/(\d{1,20})/;

export function routeOf(method: string, url: string): RouteId {
  const path = new URL(url).pathname.replace(/^\/api(\/v\d+)?/, '');
  const major = MAJOR.exec(path)?.[2] ?? 'global';
  const template = path.replace(/\/\d{1,20}(?=\/|$)/g, '/:id');
  return { routeKey: `${method.toUpperCase()}:${template}`, major };
}
