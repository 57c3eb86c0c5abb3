import express, { type ErrorRequestHandler, type Express } from 'express';
import { pluginMiddleware, PluginError } from '@rolelink/plugin-sdk';
import { configSchema, iframeConfig } from './config-form';
import { demoConfig, describeConfigError, uiModeOf } from './demo-config';
import { createEmbedRouter, type EmbedDeps } from './embed/embed.routes';
import { linkSummaries, sendIndex } from './index-page';

/** What the app needs: the same as the embedded page, which also saves settings and pushes lists. */
export type PluginDeps = EmbedDeps;

/** The plugin server contract of spec 4.2 (through the SDK's helpers), the embedded page, and a root page. */
export function createPluginApp(deps: PluginDeps): Express {
  const { registrations, onListWanted, defaultCount, log, publicUrl } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '50kb' }));

  // What this is, its routes and links: the local stack prints this URL, so it must lead somewhere.
  app.get('/', (req, res) => {
    sendIndex(req, res, linkSummaries(registrations, defaultCount));
  });

  // register, config GET/POST/DELETE (each checking the link's token) and health.
  app.use(
    pluginMiddleware({
      store: registrations,
      health: () => ({
        status: 'healthy',
        timestamp: new Date().toISOString(),
        checks: { registrations: { status: 'up', message: `${registrations.all().length} link(s)` } },
      }),
      onRegister: (link, previous) => {
        if (!previous) registrations.put({ ...link, config: { member_count: defaultCount } });
        log(`registered ${link.guildId}/${link.roleId}`);
        onListWanted(link, Number(registrations.get(link.guildId, link.roleId)?.config.member_count ?? defaultCount));
      },
      getConfig: (link) => {
        const config = registrations.get(link.guildId, link.roleId)?.config ?? {};
        return uiModeOf(config) === 'iframe' ? iframeConfig(publicUrl) : configSchema(config);
      },
      saveConfig: (link, submitted) => {
        // The service checked the submission against the form; a plugin checks again (and adds its own rules).
        const config = demoConfig.safeParse(submitted);
        // Thrown as a 4xx with `error`: the service forwards the status and this text to the dashboard (spec 4.2 rule 5).
        if (!config.success) throw new PluginError(400, describeConfigError(config.error));
        registrations.put({ ...link, config: config.data });
        if (config.data.ui_mode === 'iframe') log(`${link.guildId}/${link.roleId} switched to the embedded page`);
        onListWanted(link, config.data.member_count);
        return { ok: true, message: `Saved: ${config.data.member_count} members` };
      },
      onDelete: (link) => log(`deleted ${link.guildId}/${link.roleId}`),
      // Signed events (docs/plugin-quickstart.md "Events"): handling a kind asks the service for it; the SDK
      // verifies each POST /events with the link's token before calling these.
      events: {
        'member.not_in_guild': (e) => log(`${e.guild_id}/${e.role_id}: user ${e.data.user_id} is not in the guild`),
        'removal.held': (e) =>
          log(`${e.guild_id}/${e.role_id}: a removal of ${e.data.removals} members is held for the owner`),
        'removal.applied': (e) =>
          log(
            `${e.guild_id}/${e.role_id}: the owner applied the removal; resend the list before ${e.data.window_ends_at}`,
          ),
        // The owner pressed "Ask the plugin to resend": the list was not stored, so push it again (within the window it goes through).
        'list.resend_requested': (e, link) => {
          log(
            `${e.guild_id}/${e.role_id}: the owner asked for the list again (before ${e.data.window_ends_at}); resending it`,
          );
          onListWanted(link, Number(registrations.get(link.guildId, link.roleId)?.config.member_count ?? defaultCount));
        },
      },
    }),
  );

  app.use(createEmbedRouter(deps));

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(jsonErrors);
  return app;
}

/** Body-parser failures (bad JSON, over 50 KB) answered as JSON, so callers can show the `error` text. */
const jsonErrors: ErrorRequestHandler = (
  err: { status?: number; statusCode?: number; message?: string },
  _req,
  res,
  _next,
) => {
  const status = err.status ?? err.statusCode ?? 500;
  res.status(status).json({ error: status < 500 ? (err.message ?? 'bad request') : 'internal error' });
};
