/**
 * Headers of a page served for iframe mode (spec 4.3): `frame-ancestors` names the dashboard origins
 * allowed to frame it, and no X-Frame-Options is sent (DENY or SAMEORIGIN would block the dashboard,
 * which is another origin). Note that helmet's defaults send `X-Frame-Options: SAMEORIGIN` and
 * `frame-ancestors 'self'`: turn both off for this page if you use helmet.
 */

/** `scheme://host[:port]` and nothing else: what CSP frame-ancestors and postMessage compare. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The `frame-ancestors` directive; throws on anything that is not a plain origin (a typo would silently block the dashboard). */
export function frameAncestors(origins: readonly string[]): string {
  if (origins.length === 0) throw new Error('frame-ancestors needs at least one dashboard origin');
  for (const o of origins)
    if (!isOrigin(o)) throw new Error(`"${o}" is not an origin like https://dashboard.example.com`);
  return `frame-ancestors ${origins.join(' ')}`;
}

/**
 * Headers for the embedded page: a Content-Security-Policy ending in `frame-ancestors` (your other
 * directives first, e.g. `["default-src 'none'", "script-src 'self'"]`), `Referrer-Policy: same-origin`
 * because the page's URL carries `rl_token`, and `Cache-Control: no-store` for the same reason.
 */
export function embedPageHeaders(
  origins: readonly string[],
  directives: readonly string[] = [],
): Record<string, string> {
  return {
    'Content-Security-Policy': [...directives, frameAncestors(origins)].join('; '),
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}
