import type { IframeTokenClaims } from '@rolelink/plugin-sdk';
import { LABEL_MAX, MEMBER_COUNT_MAX } from '../demo-config';
import { PLUGIN_NAME } from '../config-form';

/**
 * HTML of the embedded configuration page (spec 4.3). No inline script or style: the page loads
 * `embed/app.js` and `embed/app.css`, so its Content-Security-Policy can forbid everything else.
 * Asset paths are relative (the page is `/embed`), so the plugin also works behind a path prefix.
 */

export type Theme = 'light' | 'dark';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(theme: Theme, body: string): string {
  return `<!doctype html>
<html lang="en" class="theme-${theme}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(PLUGIN_NAME)}</title>
<link rel="stylesheet" href="embed/app.css">
<script src="embed/app.js" defer></script>
</head>
<body>
${body}
</body>
</html>
`;
}

export type EmbedPageInput = {
  claims: IframeTokenClaims;
  saved: { member_count: number; label: string };
  dashboardOrigins: readonly string[];
  theme: Theme;
};

/** The editor page: which link and viewer, the saved values, the editor, the details block, the way back. */
export function renderEmbedPage({ claims, saved, dashboardOrigins, theme }: EmbedPageInput): string {
  const e = escapeHtml;
  return layout(
    theme,
    `<main id="app" data-dashboard-origins="${e(dashboardOrigins.join(' '))}">
<header>
  <h1>${e(PLUGIN_NAME)}</h1>
  <p class="muted">Link: guild <code>${e(claims.guild_id)}</code>, role <code>${e(claims.role_id)}</code> · viewer <code>${e(claims.sub)}</code></p>
</header>

<section class="card" aria-labelledby="saved-title">
  <h2 id="saved-title">Saved on the plugin</h2>
  <p id="saved-summary"></p>
  <p id="refreshed" class="muted" hidden></p>
</section>

<form id="editor" class="card" novalidate>
  <h2>Edit</h2>
  <label for="member_count">How many demo members hold the role</label>
  <input id="member_count" name="member_count" type="number" min="0" max="${MEMBER_COUNT_MAX}" step="1" required value="${saved.member_count}">
  <label for="label">A label for this link</label>
  <input id="label" name="label" type="text" maxlength="${LABEL_MAX}" placeholder="Demo" value="${e(saved.label)}">
  <div class="actions">
    <button type="submit" id="save">Save</button>
    <span id="dirty" class="muted" hidden>Unsaved changes</span>
  </div>
  <p id="status" role="status"></p>
</form>

<section class="card">
  <button type="button" id="toggle-details" aria-expanded="false" aria-controls="details">Expand details</button>
  <div id="details" class="details" hidden>
    <p>This page talks to the dashboard with window messages, only with the dashboard origin that framed it:</p>
    <ul>
      <li><code>rl:resize</code> with the page height, on load and whenever it changes (like now);</li>
      <li><code>rl:dirty</code> when the editor differs from the saved values, or stops differing;</li>
      <li><code>rl:saved</code> after a successful save;</li>
      <li><code>rl:toast</code> for errors and notices.</li>
    </ul>
    <p>When the dashboard tab becomes visible again it sends <code>rl:visible</code>: the page then reloads the saved values, and the editor too unless it holds unsaved changes.</p>
  </div>
</section>

<section class="card">
  <p>Prefer the dashboard’s own form? Switching back saves the mode; reload the configuration tab afterwards.</p>
  <button type="button" id="use-form" class="secondary">Use the form instead</button>
</section>
</main>`,
  );
}

/** The refusal page (401): still frameable, so the admin reads the reason inside the dashboard. */
export function renderEmbedError(message: string, theme: Theme, dashboardOrigins: readonly string[]): string {
  const origins = escapeHtml(dashboardOrigins.join(' '));
  // app.js still runs here (with no editor) so the dashboard sizes the frame to the message.
  return layout(
    theme,
    `<main id="app" class="error" data-dashboard-origins="${origins}">\n<h1>Cannot open this page</h1>\n<p>${escapeHtml(message)}</p>\n</main>`,
  );
}
