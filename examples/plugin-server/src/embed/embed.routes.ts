import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import { embedPageHeaders } from '@rolelink/plugin-sdk';
import { z } from 'zod';
import { demoConfig, describeConfigError, LABEL_MAX, MEMBER_COUNT_MAX, uiModeOf, UI_MODES } from '../demo-config';
import type { Registration, Registrations } from '../registrations';
import { authenticateEmbed, bearerToken, EMBED_AUTH_MESSAGES, type EmbedAuth } from './embed-auth';
import { renderEmbedError, renderEmbedPage, type Theme } from './embed-page';

export type EmbedDeps = {
  registrations: Registrations;
  /** Called after a link registers or its settings are saved (form or embedded page): push its list. */
  onListWanted: (link: { guildId: string; roleId: string; token: string }, memberCount: number) => void;
  defaultCount: number;
  log: (line: string) => void;
  /** The plugin URL as registered: the `aud` every rl_token must carry. */
  publicUrl: string;
  /** Dashboard origins allowed to frame the page (CSP frame-ancestors) and to message it. */
  dashboardOrigins: readonly string[];
};

/** What the embedded editor changes; `ui_mode` lets the page switch the link back to the form. */
const embedSave = z
  .object({
    member_count: z.number().int().min(0).max(MEMBER_COUNT_MAX).optional(),
    label: z.string().max(LABEL_MAX).optional(),
    ui_mode: z.enum(UI_MODES).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'nothing to save');

// Read once at start: plain browser files, served as they are (no build step for plugin authors to copy).
const PUBLIC_DIR = path.join(__dirname, 'public');
const APP_JS = readFileSync(path.join(PUBLIC_DIR, 'app.js'), 'utf8');
const APP_CSS = readFileSync(path.join(PUBLIC_DIR, 'app.css'), 'utf8');

function editorValues(reg: Registration, defaultCount: number) {
  return {
    member_count: Number(reg.config.member_count ?? defaultCount),
    label: typeof reg.config.label === 'string' ? reg.config.label : '',
  };
}

/** Headers of the page and of its refusal: frameable by the dashboard only, nothing else loads. */
function setPageHeaders(res: Response, dashboardOrigins: readonly string[]): void {
  // The SDK's helper: CSP ending in frame-ancestors (spec 4.3), no X-Frame-Options (DENY or SAMEORIGIN
  // would block the dashboard, another origin), no Referer and no caching since the URL holds rl_token.
  res.set(
    embedPageHeaders(dashboardOrigins, [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
    ]),
  );
}

/** The embedded configuration page of iframe mode (spec 2.11, 4.3, 6.3) and the calls it makes. */
export function createEmbedRouter(deps: EmbedDeps): Router {
  const { registrations, publicUrl, dashboardOrigins, defaultCount, onListWanted, log } = deps;
  const router = Router();
  const authOf = (req: Request): EmbedAuth =>
    authenticateEmbed(bearerToken(req.get('authorization')), registrations, publicUrl);
  const refuse = (res: Response, auth: Exclude<EmbedAuth, { ok: true }>) =>
    void res.status(401).json({ error: EMBED_AUTH_MESSAGES[auth.reason] });

  router.get('/embed', (req, res) => {
    const theme: Theme = req.query.theme === 'dark' ? 'dark' : 'light';
    const token = typeof req.query.rl_token === 'string' ? req.query.rl_token : undefined;
    const auth = authenticateEmbed(token, registrations, publicUrl);
    setPageHeaders(res, dashboardOrigins);
    res.type('html');
    if (!auth.ok)
      return void res.status(401).send(renderEmbedError(EMBED_AUTH_MESSAGES[auth.reason], theme, dashboardOrigins));
    res.send(
      renderEmbedPage({
        claims: auth.claims,
        saved: editorValues(auth.registration, defaultCount),
        dashboardOrigins,
        theme,
      }),
    );
  });

  router.get('/embed/app.js', (_req, res) => {
    res
      .set('Cache-Control', 'no-cache')
      .set('X-Content-Type-Options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(APP_JS);
  });

  router.get('/embed/app.css', (_req, res) => {
    res
      .set('Cache-Control', 'no-cache')
      .set('X-Content-Type-Options', 'nosniff')
      .type('text/css; charset=utf-8')
      .send(APP_CSS);
  });

  // The page's "external data": refetched on rl:visible, because another admin may have saved since.
  router.get('/embed/state', (req, res) => {
    const auth = authOf(req);
    if (!auth.ok) return refuse(res, auth);
    res.set('Cache-Control', 'no-store').json({
      saved: editorValues(auth.registration, defaultCount),
      ui_mode: uiModeOf(auth.registration.config),
      checked_at: new Date().toISOString(),
    });
  });

  router.post('/embed/config', (req, res) => {
    const auth = authOf(req);
    if (!auth.ok) return refuse(res, auth);
    const body = embedSave.safeParse(req.body);
    if (!body.success) return void res.status(400).json({ error: describeConfigError(body.error) });
    const reg = auth.registration;
    // Re-check the whole merged config, so the saved config always passes the form's own rules.
    const merged = demoConfig.safeParse({ ...reg.config, ...body.data });
    if (!merged.success) return void res.status(400).json({ error: describeConfigError(merged.error) });
    registrations.put({ ...reg, config: merged.data });
    const switchedBack = body.data.ui_mode === 'schema' && uiModeOf(reg.config) === 'iframe';
    log(
      `embedded page saved ${reg.guildId}/${reg.roleId} for viewer ${auth.claims.sub}${switchedBack ? ' (back to the form)' : ''}`,
    );
    res.json({
      ok: true,
      message: switchedBack
        ? 'Switched back to the form — reload the configuration tab'
        : `Saved: ${merged.data.member_count} members`,
      saved: editorValues({ ...reg, config: merged.data }, defaultCount),
      ui_mode: uiModeOf(merged.data),
    });
    if (body.data.member_count !== undefined) onListWanted(reg, merged.data.member_count);
  });

  return router;
}
