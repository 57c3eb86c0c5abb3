import express, { type Express, type Request } from 'express';
import { z } from 'zod';
import { configSchema, demoConfig } from './config-form';
import type { Registrations } from './registrations';

export type PluginDeps = {
  registrations: Registrations;
  /** Called after a link registers or its form is saved: push that link's list to the API. */
  onListWanted: (link: { guildId: string; roleId: string; token: string }, memberCount: number) => void;
  defaultCount: number;
  log: (line: string) => void;
};

const linkBody = z.object({ guild_id: z.string().regex(/^\d+$/), role_id: z.string().regex(/^\d+$/) });
const configBody = linkBody.extend({ config: z.record(z.string(), z.unknown()) });

function tokenOf(req: Request): string | null {
  const match = /^Token (rl_[A-Za-z0-9_]+)$/.exec(req.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** The plugin server contract of spec 4.2: register, config (get/save/delete), health. */
export function createPluginApp({ registrations, onListWanted, defaultCount, log }: PluginDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '50kb' }));

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
    res.json(configSchema(reg.config));
  });

  app.post('/config', (req, res) => {
    const token = tokenOf(req);
    const body = configBody.safeParse(req.body);
    if (!body.success) return void res.status(400).json({ error: 'guild_id, role_id and config are required' });
    const reg = registrations.get(body.data.guild_id, body.data.role_id);
    if (!reg || reg.token !== token) return void res.status(401).json({ error: 'unknown link or token' });
    const config = demoConfig.safeParse(body.data.config);
    if (!config.success) return void res.status(400).json({ error: 'member_count must be a whole number from 0 to 10000' });
    registrations.put({ ...reg, config: config.data });
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

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return app;
}
