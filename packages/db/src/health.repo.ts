import type { PrismaClient } from './generated/client';
import type { PluginHealthStatus } from './generated/enums';

// plugin_health_check: the broker's poll writes one row per check, the dashboard and CLI read the history.

/** Checks kept per plugin URL: the latest for the status page, the rest as recent history. */
export const HEALTH_HISTORY_PER_PLUGIN = 20;

export type HealthCheckInput = { status: PluginHealthStatus; latencyMs: number | null; detail: Record<string, unknown> };

/** Stores one check and trims that plugin's history to the newest HEALTH_HISTORY_PER_PLUGIN rows. */
export async function recordHealth(prisma: PrismaClient, pluginUrl: string, result: HealthCheckInput, checkedAt: Date): Promise<void> {
  await prisma.$transaction([
    prisma.pluginHealthCheck.create({
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: Prisma's JSON input does not take Record<string, unknown>
      data: { pluginUrl, status: result.status, latencyMs: result.latencyMs, detail: result.detail as object, checkedAt },
    }),
    prisma.$executeRaw`
      DELETE FROM plugin_health_check
      WHERE plugin_url = ${pluginUrl}
        AND id < (SELECT id FROM plugin_health_check WHERE plugin_url = ${pluginUrl} ORDER BY id DESC OFFSET ${HEALTH_HISTORY_PER_PLUGIN - 1} LIMIT 1)`,
  ]);
}

/** Forgets plugins no link uses any more. */
export async function pruneUnusedPlugins(prisma: PrismaClient): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM plugin_health_check h WHERE NOT EXISTS (SELECT 1 FROM role_link l WHERE l.plugin_url = h.plugin_url)`;
}

/** How many links' plugins are in each state, by each plugin's latest check (for the rolelink_plugin_health_links gauge). */
export async function countLinksByHealth(prisma: PrismaClient): Promise<Partial<Record<PluginHealthStatus, number>>> {
  const rows = await prisma.$queryRaw<{ status: PluginHealthStatus; links: number }[]>`
    SELECT h.status::text AS status, count(*)::int AS links
    FROM role_link l
    JOIN LATERAL (SELECT status FROM plugin_health_check c WHERE c.plugin_url = l.plugin_url ORDER BY c.id DESC LIMIT 1) h ON true
    GROUP BY h.status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.links]));
}

/** A plugin's recorded checks, newest first (at most the kept history). */
export async function healthHistory(prisma: PrismaClient, pluginUrl: string) {
  return prisma.pluginHealthCheck.findMany({ where: { pluginUrl }, orderBy: { id: 'desc' }, take: HEALTH_HISTORY_PER_PLUGIN });
}

/** The next page of distinct plugin URLs after `after`, in order: what the health poll checks. */
export async function pluginUrlsAfter(prisma: PrismaClient, after: string, limit: number): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ plugin_url: string }[]>`
    SELECT DISTINCT plugin_url FROM role_link WHERE plugin_url > ${after} ORDER BY plugin_url LIMIT ${limit}`;
  return rows.map((r) => r.plugin_url);
}
