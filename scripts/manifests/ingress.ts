// The Ingress rules of docs/operations.md ("Kubernetes"): the API host routes every path a plugin author is
// sent to, and the proxy's body limit sits above the API's own, so an oversized body is answered by the API
// with the spec's JSON 413 rather than by nginx with an HTML page.
import { LIST_BODY_LIMIT } from '../../services/api/src/body';
import { asArray, at, get, type Manifest, type Problem } from './types';

/** Paths the docs and the quickstart send plugin authors to, on the API host. */
const API_PATHS = ['/api/role-link', '/openapi.json', '/reference', '/reference/', '/reference/swagger-ui.css'];
const BODY_SIZE = 'nginx.ingress.kubernetes.io/proxy-body-size';

/** Bytes of a size in nginx's units (k, m, g: powers of 1024; "0" means no limit) or body-parser's (kb, mb). */
export function sizeInBytes(size: string): number {
  const m = /^(\d+)\s*([kmg]?)b?$/i.exec(size.trim());
  if (!m) return NaN;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) === 0 ? Infinity : Number(m[1]) * unit;
}

/** Whether an Ingress path (Exact or Prefix, as the Ingress API defines them) takes this request path. */
function routes(p: unknown, requestPath: string): boolean {
  const path = String(get(p, 'path'));
  if (get(p, 'pathType') === 'Exact') return requestPath === path;
  const prefix = path.replace(/\/+$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}

export function ingressChecks(all: Manifest[], problems: Problem[]): void {
  for (const i of all.filter((m) => m.doc.kind === 'Ingress')) {
    const fail = (message: string) => problems.push({ file: i.file, where: at(i), message });
    const apiPaths = asArray(get(i.doc, 'spec', 'rules'))
      .flatMap((rule) => asArray(get(rule, 'http', 'paths')))
      .filter((p) => get(p, 'backend', 'service', 'name') === 'rolelink-api');
    if (!apiPaths.length) continue;
    for (const want of API_PATHS)
      if (!apiPaths.some((p) => routes(p, want))) fail(`${want} is not routed to rolelink-api`);
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
