/** What the emulator's HTML pages (the index, the OAuth2 sign-in pages) share: escaping, headers, the document. */

/** Every value that reaches a page goes through here: text and attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Headers of every page: a strict CSP (no script at all; the one style element carries the nonce;
 * forms may post nowhere unless `redirectOrigin` is given: browsers apply form-action to the redirect
 * that follows a sign-in POST, hence the client's origin), no framing, no referrer (the sign-in URL
 * carries `state`), no caching. `postsHere` allows forms that post to the emulator itself without a
 * redirect elsewhere (the bot authorization page without redirect_uri).
 */
export function pageHeaders(
  nonce: string,
  redirectOrigin?: string,
  postsHere = redirectOrigin !== undefined,
): Record<string, string> {
  const formAction = !postsHere ? "'none'" : redirectOrigin === undefined ? "'self'" : `'self' ${redirectOrigin}`;
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

/** A self-contained page: `title` is escaped here; `body` must already be escaped HTML. */
export function htmlDocument(title: string, nonce: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
