import type { PluginHealthCheckView, PluginHealthStatus } from '@rolelink/contracts';
import type { PrismaClient } from '@rolelink/db';
import type { Command } from '../command';
import { linkArgs, printable, resolveLink, type LinkArgs, type Printable } from './config';

export type PluginHealthView = {
  plugin_url: string;
  /** The latest check's status; `unknown` before the first poll. */
  status: PluginHealthStatus | 'unknown';
  latest: PluginHealthCheckView | null;
  /** Newest first, at most 20 (the broker's bounded history). */
  history: PluginHealthCheckView[];
};

/** A plugin's health as recorded by the broker's poll (spec 2.5, 6.1); reads the database only. */
export async function readPluginHealth(prisma: PrismaClient, pluginUrl: string): Promise<PluginHealthView> {
  const rows = await prisma.pluginHealthCheck.findMany({ where: { pluginUrl }, orderBy: { id: 'desc' }, take: 20 });
  const history = rows.map((r) => ({
    status: r.status,
    checked_at: r.checkedAt.toISOString(),
    latency_ms: r.latencyMs,
    detail: (r.detail ?? null) as Record<string, unknown> | null,
  }));
  const latest = history[0] ?? null;
  return { plugin_url: pluginUrl, status: latest?.status ?? 'unknown', latest, history };
}

/** `rolelink health <guildId> <roleId>` */
export async function health(ctx: { prisma: PrismaClient }, args: LinkArgs): Promise<Printable<PluginHealthView>> {
  const link = await resolveLink(ctx.prisma, args);
  const view = await readPluginHealth(ctx.prisma, link.pluginUrl);
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
    summary: 'The plugin\'s latest GET /health status and recent history, as polled by the plugin broker',
    run: (ctx, a) => health({ prisma: ctx.database().prisma }, linkArgs(a)),
  },
];
