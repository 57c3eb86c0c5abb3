import { parseArgs } from 'node:util';
import type { PluginHealthCheckView, PluginHealthStatus } from '@rolelink/contracts';
import type { PrismaClient } from '@rolelink/db';
import { linkArgs, resolveLink, type CommandResult, type LinkArgs } from './config';

export type PluginHealthView = {
  plugin_url: string;
  /** The latest check's status; `unknown` before the first poll. */
  status: PluginHealthStatus | 'unknown';
  latest: PluginHealthCheckView | null;
  /** Newest first, at most 20 (the broker's bounded history). */
  history: PluginHealthCheckView[];
};

/** A link's plugin health as recorded by the broker's poll (spec 2.5, 6.1); reads the database only. */
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
export async function health(ctx: { prisma: PrismaClient }, args: LinkArgs): Promise<CommandResult> {
  const link = await resolveLink(ctx.prisma, args);
  const view = await readPluginHealth(ctx.prisma, link.pluginUrl);
  const text = view.latest
    ? [
        `${view.plugin_url}: ${view.status} (checked ${view.latest.checked_at}${view.latest.latency_ms === null ? '' : `, ${view.latest.latency_ms} ms`})`,
        ...(view.latest.detail && Object.keys(view.latest.detail).length ? [JSON.stringify(view.latest.detail)] : []),
        `history: ${view.history.map((h) => h.status).join(' ')}`,
      ].join('\n')
    : `${view.plugin_url}: unknown (not polled yet)`;
  return { data: view, text };
}

export async function healthRun(ctx: { prisma: PrismaClient }, argv: string[]): Promise<CommandResult> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' } } });
  return health(ctx, linkArgs(positionals));
}
