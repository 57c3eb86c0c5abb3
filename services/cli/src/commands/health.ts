import { readPluginHealth, type PluginHealthView } from '@rolelink/admin';
import type { Queryable } from '@rolelink/db/client';
import type { Command } from '../command';
import { linkArgs, printable, resolveLink, type LinkArgs, type Printable } from './config';

/** `rolelink health <guildId> <roleId>` */
export async function health(ctx: { db: Queryable }, args: LinkArgs): Promise<Printable<PluginHealthView>> {
  const link = await resolveLink(ctx.db, args);
  const view = await readPluginHealth(ctx.db, link.pluginUrl);
  const latest = view.latest;
  return printable(view, {
    plugin_url: view.plugin_url,
    status: latest ? view.status : 'unknown (not polled yet)',
    ...(latest
      ? {
          checked_at: latest.checked_at,
          latency_ms: latest.latency_ms ?? '-',
          ...(latest.detail && Object.keys(latest.detail).length ? { detail: JSON.stringify(latest.detail) } : {}),
          history: view.history.map((h) => h.status).join(' '),
        }
      : {}),
  });
}

export const healthCommands: Command[] = [
  {
    words: ['health'],
    args: ['guildId', 'roleId'],
    summary: "The plugin's latest GET /health status and recent history, as polled by the plugin broker",
    run: (ctx, a) => health({ db: ctx.database().pool }, linkArgs(a)),
  },
];
