import type { PluginHealthStatus } from '../generated/enums';
import { inTransaction, type Queryable } from '../client/queryable';

// plugin_health_check: the broker's poll writes one row per check, the dashboard and CLI read the history.

/** Checks kept per plugin URL: the latest for the status page, the rest as recent history. */
export const HEALTH_HISTORY_PER_PLUGIN = 20;

export type HealthCheckInput = {
  status: PluginHealthStatus;
  latencyMs: number | null;
  detail: Record<string, unknown>;
};

export type HealthCheckRow = { status: PluginHealthStatus; latencyMs: number | null; detail: unknown; checkedAt: Date };

/** Stores one check and trims that plugin's history to the newest HEALTH_HISTORY_PER_PLUGIN rows. */
export async function recordHealth(
  db: Queryable,
  pluginUrl: string,
  result: HealthCheckInput,
  checkedAt: Date,
): Promise<void> {
  await inTransaction(db, async (c) => {
    // checked_at is a timestamp without time zone holding UTC (Prisma's convention for DateTime): written and read as UTC.
    await c.query(
      `INSERT INTO plugin_health_check (plugin_url, status, latency_ms, detail, checked_at) VALUES ($1, $2, $3, $4, $5::timestamptz AT TIME ZONE 'UTC')`,
      [pluginUrl, result.status, result.latencyMs, JSON.stringify(result.detail), checkedAt.toISOString()],
    );
    await c.query(
      `
      DELETE FROM plugin_health_check
      WHERE plugin_url = $1
        AND id < (SELECT id FROM plugin_health_check WHERE plugin_url = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [pluginUrl, HEALTH_HISTORY_PER_PLUGIN - 1],
    );
  });
}

/** Forgets plugins no link uses any more. */
export async function pruneUnusedPlugins(db: Queryable): Promise<number> {
  const r = await db.query(`
    DELETE FROM plugin_health_check h WHERE NOT EXISTS (SELECT 1 FROM role_link l WHERE l.plugin_url = h.plugin_url)`);
  return r.rowCount ?? 0;
}

/** How many links' plugins are in each state, by each plugin's latest check (for the rolelink_plugin_health_links gauge). */
export async function countLinksByHealth(db: Queryable): Promise<Partial<Record<PluginHealthStatus, number>>> {
  const { rows } = await db.query<{ status: PluginHealthStatus; links: number }>(`
    SELECT h.status::text AS status, count(*)::int AS links
    FROM role_link l
    JOIN LATERAL (SELECT status FROM plugin_health_check c WHERE c.plugin_url = l.plugin_url ORDER BY c.id DESC LIMIT 1) h ON true
    GROUP BY h.status`);
  return Object.fromEntries(rows.map((r) => [r.status, r.links]));
}

/** A plugin's recorded checks, newest first (at most the kept history). */
export async function healthHistory(db: Queryable, pluginUrl: string): Promise<HealthCheckRow[]> {
  const { rows } = await db.query<HealthCheckRow>(
    `SELECT status::text AS status, latency_ms AS "latencyMs", detail, checked_at AT TIME ZONE 'UTC' AS "checkedAt" FROM plugin_health_check WHERE plugin_url = $1 ORDER BY id DESC LIMIT $2`,
    [pluginUrl, HEALTH_HISTORY_PER_PLUGIN],
  );
  return rows;
}

/** The next page of distinct plugin URLs after `after`, in order: what the health poll checks. */
export async function pluginUrlsAfter(db: Queryable, after: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ plugin_url: string }>(
    `
    SELECT DISTINCT plugin_url FROM role_link WHERE plugin_url > $1 ORDER BY plugin_url LIMIT $2`,
    [after, limit],
  );
  return rows.map((r) => r.plugin_url);
}
