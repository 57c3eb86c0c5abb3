import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { PLUGIN_NAME } from './config-form';
import { uiModeOf, type UiMode } from './demo-config';
import type { Registrations } from './registrations';

/** One registered link as the root page shows it: which link, its mode and count, never its token. */
export type LinkSummary = { guild_id: string; role_id: string; ui_mode: UiMode; member_count: number };

/** The contract routes, for a person who opens the plugin's URL (the local stack prints it). */
export const ENDPOINTS = [
  { route: 'POST /register', does: 'the Role Link Service registers a link and hands over its API token' },
  {
    route: 'GET /config',
    does: "the link's configuration: a form schema, or the embedded page's URL (Authorization: Token …)",
  },
  { route: 'POST /config', does: 'saves the configuration and pushes the new list (Authorization: Token …)' },
  { route: 'DELETE /config', does: 'forgets the link (Authorization: Token …)' },
  { route: 'GET /health', does: 'health, as the plugin broker polls it' },
  { route: 'GET /embed?rl_token=…', does: 'the embedded configuration page (iframe mode), framed by the dashboard' },
] as const;

const DESCRIPTION =
  'The example plugin of the Role Link Service: it registers role links and pushes a demo member list for each through the User Management API.';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; color: #1e1f22; }
  th, td { text-align: left; padding: .2rem .75rem .2rem 0; vertical-align: top; }
  code { background: #f2f3f5; padding: 0 .2rem; border-radius: 3px; }
`;

export function linkSummaries(registrations: Registrations, defaultCount: number): LinkSummary[] {
  return registrations.all().map((r) => ({
    guild_id: r.guildId,
    role_id: r.roleId,
    ui_mode: uiModeOf(r.config),
    member_count: Number(r.config.member_count ?? defaultCount),
  }));
}

/** `GET /`: HTML for a browser, JSON when the caller prefers it (`Accept: application/json`). */
export function sendIndex(req: Request, res: Response, links: LinkSummary[]): void {
  if (req.accepts(['html', 'json']) === 'json') {
    return void res.json({ name: PLUGIN_NAME, description: DESCRIPTION, endpoints: ENDPOINTS, links });
  }
  const nonce = randomBytes(16).toString('base64');
  res
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      // No script at all; the one style element carries the nonce. Unlike /embed, nobody frames this page.
      'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    })
    .send(renderIndex(links, nonce));
}

export function renderIndex(links: LinkSummary[], nonce: string): string {
  const e = escapeHtml;
  const endpoints = ENDPOINTS.map(
    ({ route, does }) =>
      `<tr><td><code>${route === 'GET /health' ? '<a href="health">GET /health</a>' : e(route)}</code></td><td>${e(does)}</td></tr>`,
  ).join('');
  const rows = links
    .map(
      (l) =>
        `<tr><td><code>${e(l.guild_id)}</code></td><td><code>${e(l.role_id)}</code></td><td>${l.ui_mode === 'iframe' ? 'embedded page (iframe)' : 'form (schema)'}</td><td>${l.member_count}</td></tr>`,
    )
    .join('');
  const linksPart = links.length
    ? `<p>${links.length} link(s) registered.</p>
<table><thead><tr><th>Guild</th><th>Role</th><th>Configuration mode</th><th>List size (member_count)</th></tr></thead><tbody>${rows}</tbody></table>`
    : "<p>No link registered yet: create a role link with this plugin's URL (the local stack creates one for its demo guild).</p>";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(PLUGIN_NAME)} — example plugin</title>
<style nonce="${e(nonce)}">${STYLE}</style>
</head>
<body>
<h1>${e(PLUGIN_NAME)}</h1>
<p>${e(DESCRIPTION)}</p>
<h2>Endpoints</h2>
<table><tbody>${endpoints}</tbody></table>
<h2>Links</h2>
${linksPart}
</body>
</html>
`;
}
