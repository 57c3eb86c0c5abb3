import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { z } from 'zod';
import { configSchema, iframeConfig } from './config-form';
import { demoConfig, describeConfigError, uiModeOf } from './demo-config';
import { createEmbedRouter, type EmbedDeps } from './embed/embed.routes';
import { linkSummaries, sendIndex } from './index-page';

/** What the app needs: the same as the embedded page, which also saves settings and pushes lists. */
export type PluginDeps = EmbedDeps;

const linkBody = z.object({ guild_id: z.string().regex(/^\d+$/), role_id: z.string().regex(/^\d+$/) });
const configBody = linkBody.extend({ config: z.record(z.string(), z.unknown()) });

function tokenOf(req: Request): string | null {
  const match = /^Token (rl_[A-Za-z0-9_]+)$/.exec(req.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** The plugin server contract of spec 4.2 (register, config get/save/delete, health), the embedded page, and a root page. */
export function createPluginApp(deps: PluginDeps): Express {
  const { registrations, onListWanted, defaultCount, log, publicUrl } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '50kb' }));

  // What this is, its routes and links: the local stack prints this URL, so it must lead somewhere.
  app.get('/', (req, res) => {
    sendIndex(req, res, linkSummaries(registrations, defaultCount));
  });

  app.get('/health', (_req, res) => {
    res.json({ status: 'healthy', timestamp: new Date().toISOString(), checks: { registrations: { status: 'up', message: `${registrations.all().length} link(s)` } } });
  });

  app.post('/register', (req, res) => {
    const token = tokenOf(req);
    const body = linkBody.safeParse(req.body);
    if (!token) return void res.status(401).json({ error: 'Authorization: Token rl_… required' });
    if (!body.success) return void res.status(400).json({ error: 'guild_id and role_id are required' });
    const { guild_id: guildId, role_id: roleId } = body.data;
    const previous = registrations.get(guildId, roleId);
    registrations.put({ guildId, roleId, token, config: previous?.config ?? { member_count: defaultCount } });
    log(`registered ${guildId}/${roleId}`);
    res.json({ ok: true });
    onListWanted({ guildId, roleId, token }, Number(previous?.config.member_count ?? defaultCount));
  });

  app.get('/config', (req, res) => {
    const token = tokenOf(req);
    const reg = token ? registrations.byToken(token) : undefined;
    if (!reg) return void res.status(401).json({ error: 'unknown token' });
    res.json(uiModeOf(reg.config) === 'iframe' ? iframeConfig(publicUrl) : configSchema(reg.config));
  });

  app.post('/config', (req, res) => {
    const token = tokenOf(req);
    const body = configBody.safeParse(req.body);
    if (!body.success) return void res.status(400).json({ error: 'guild_id, role_id and config are required' });
    const reg = registrations.get(body.data.guild_id, body.data.role_id);
    if (!reg || reg.token !== token) return void res.status(401).json({ error: 'unknown link or token' });
    const config = demoConfig.safeParse(body.data.config);
    // 4xx with `error`: the service forwards the status and this text to the dashboard (spec 4.2 rule 5).
    if (!config.success) return void res.status(400).json({ error: describeConfigError(config.error) });
    registrations.put({ ...reg, config: config.data });
    if (config.data.ui_mode === 'iframe') log(`${reg.guildId}/${reg.roleId} switched to the embedded page`);
    res.json({ ok: true, message: `Saved: ${config.data.member_count} members` });
    onListWanted(reg, config.data.member_count);
  });

  app.delete('/config', (req, res) => {
    const body = linkBody.safeParse(req.body);
    const token = tokenOf(req);
    const reg = body.success ? registrations.get(body.data.guild_id, body.data.role_id) : undefined;
    if (reg && reg.token === token) {
      registrations.delete(reg.guildId, reg.roleId);
      log(`deleted ${reg.guildId}/${reg.roleId}`);
    }
    res.json({ ok: true });
  });

  app.use(createEmbedRouter(deps));

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(jsonErrors);
  return app;
}

/** Body-parser failures (bad JSON, over 50 KB) answered as JSON, so callers can show the `error` text. */
const jsonErrors: ErrorRequestHandler = (err: { status?: number; statusCode?: number; message?: string }, _req, res, _next) => {
  const status = err.status ?? err.statusCode ?? 500;
  res.status(status).json({ error: status < 500 ? (err.message ?? 'bad request') : 'internal error' });
};
