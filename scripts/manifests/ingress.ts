// The public routes of docs/operations.md ("Kubernetes"), on an Ingress or Gateway API HTTPRoutes alike: the
// API host routes every path a plugin author is sent to, the dashboard host every path the dashboard serves
// to a browser and never /metrics (nor the probes); under ingress-nginx the proxy's body limit sits above the
// API's own, so an oversized body is answered by the API with the spec's JSON 413 rather than by nginx with
// an HTML page.
import { LIST_BODY_LIMIT } from '../../services/api/src/body';
import { asArray, asRecord, at, get, type Manifest, type Problem } from './types';

/** Paths the docs and the quickstart send plugin authors to, on the API host. */
const API_PATHS = ['/api/role-link', '/openapi.json', '/reference', '/reference/', '/reference/swagger-ui.css'];
/** Paths a browser needs on the dashboard host: the web app's pages, its assets, sign-in, the browser API. */
const DASHBOARD_PATHS = [
  '/',
  '/guilds/1/health',
  '/assets/index.js',
  '/auth/login',
  '/dashboard-api/me',
  '/favicon.svg',
];
/** Paths no route may publish, on any host: the metrics and the probes (Express matches /metrics/ too). */
const PRIVATE_PATHS = ['/metrics', '/metrics/', '/healthz', '/readyz'];
const BODY_SIZE = 'nginx.ingress.kubernetes.io/proxy-body-size';

/** Bytes of a size in nginx's units (k, m, g: powers of 1024; "0" means no limit) or body-parser's (kb, mb). */
export function sizeInBytes(size: string): number {
  const m = /^(\d+)\s*([kmg]?)b?$/i.exec(size.trim());
  if (!m) return NaN;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) === 0 ? Infinity : Number(m[1]) * unit;
}

/** Whether a path match takes this request path: an Ingress path (Exact, Prefix) or an HTTPRoute match (Exact, PathPrefix). */
function routes(p: { path: string; type: string }, requestPath: string): boolean {
  const { path } = p;
  if (p.type === 'Exact') return requestPath === path;
  const prefix = path.replace(/\/+$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}

const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

type Route = { path: string; type: string; service: string };

/** Every (host, path match, backend Service) of the rendered Ingresses and HTTPRoutes. */
function publicRoutes(all: Manifest[]): { m: Manifest; host: string; routes: Route[] }[] {
  const out: { m: Manifest; host: string; routes: Route[] }[] = [];
  for (const m of all.filter((x) => x.doc.kind === 'Ingress')) {
    for (const rule of asArray(get(m.doc, 'spec', 'rules'))) {
      const routesOf = asArray(get(rule, 'http', 'paths')).map((p) => ({
        path: String(get(p, 'path')),
        type: String(get(p, 'pathType')),
        service: String(get(p, 'backend', 'service', 'name')),
      }));
      out.push({ m, host: str(get(rule, 'host'), '*'), routes: routesOf });
    }
  }
  for (const m of all.filter((x) => x.doc.kind === 'HTTPRoute')) {
    const routesOf = asArray(get(m.doc, 'spec', 'rules')).flatMap((rule) => {
      const services = asArray(get(rule, 'backendRefs')).map((b) => String(get(b, 'name')));
      const matches = asArray(get(rule, 'matches'));
      // A rule without matches takes every path (PathPrefix /).
      const paths = matches.length
        ? matches.map((x) => ({
            path: str(get(x, 'path', 'value'), '/'),
            type: str(get(x, 'path', 'type'), 'PathPrefix'),
          }))
        : [{ path: '/', type: 'PathPrefix' }];
      return paths.flatMap((p) => services.map((service) => ({ ...p, service })));
    });
    const hosts = asArray(get(m.doc, 'spec', 'hostnames')).map(String);
    for (const host of hosts.length ? hosts : ['*']) out.push({ m, host, routes: routesOf });
  }
  return out;
}

export function routeChecks(all: Manifest[], problems: Problem[]): void {
  for (const m of all.filter((x) => x.doc.kind === 'HTTPRoute')) {
    const apiRoutes = publicRoutes([m]).flatMap((h) => h.routes.filter((r) => r.service === 'rolelink-api'));
    if (!apiRoutes.length) continue;
    for (const want of API_PATHS)
      if (!apiRoutes.some((r) => routes(r, want)))
        problems.push({ file: m.file, where: at(m), message: `${want} is not routed to rolelink-api` });
  }
  const services = all.filter((m) => m.doc.kind === 'Service').map((m) => String(get(m.doc, 'metadata', 'name')));
  for (const { m, host, routes: hostRoutes } of publicRoutes(all)) {
    const fail = (message: string) => problems.push({ file: m.file, where: `${at(m)} ${host}`, message });
    for (const r of hostRoutes) if (!services.includes(r.service)) fail(`backend service ${r.service} does not exist`);
    for (const privatePath of PRIVATE_PATHS) {
      const hit = hostRoutes.find((r) => routes(r, privatePath));
      if (hit) fail(`${privatePath} is routed to ${hit.service}: it must stay inside the cluster`);
    }
    if (hostRoutes.some((r) => r.service === 'rolelink-dashboard'))
      for (const want of DASHBOARD_PATHS)
        if (!hostRoutes.some((r) => r.service === 'rolelink-dashboard' && routes(r, want)))
          fail(`${want} is not routed to rolelink-dashboard`);
  }
}

export function ingressChecks(all: Manifest[], problems: Problem[]): void {
  for (const i of all.filter((m) => m.doc.kind === 'Ingress')) {
    const fail = (message: string) => problems.push({ file: i.file, where: at(i), message });
    const apiPaths = asArray(get(i.doc, 'spec', 'rules'))
      .flatMap((rule) => asArray(get(rule, 'http', 'paths')))
      .filter((p) => get(p, 'backend', 'service', 'name') === 'rolelink-api')
      .map((p) => ({ path: String(get(p, 'path')), type: String(get(p, 'pathType')) }));
    if (!apiPaths.length) continue;
    for (const want of API_PATHS)
      if (!apiPaths.some((p) => routes(p, want))) fail(`${want} is not routed to rolelink-api`);
    // The body limit is ingress-nginx's; another controller has its own setting (docs/operations.md).
    const annotations = Object.keys(asRecord(get(i.doc, 'metadata', 'annotations')));
    const nginx =
      get(i.doc, 'spec', 'ingressClassName') === 'nginx' ||
      annotations.some((a) => a.startsWith('nginx.ingress.kubernetes.io/'));
    if (!nginx) continue;
    const annotated = get(i.doc, 'metadata', 'annotations', BODY_SIZE);
    // nginx's default is 1m when the annotation is absent.
    const size = typeof annotated === 'string' ? annotated : '1m';
    if (sizeInBytes(size) <= sizeInBytes(LIST_BODY_LIMIT)) {
      fail(
        `${BODY_SIZE} (${size}) must exceed the API's body limit (${LIST_BODY_LIMIT}), or nginx answers 413 in HTML`,
      );
    }
  }
}
