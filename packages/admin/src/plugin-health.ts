import type { PluginHealthView } from '@rolelink/contracts';
import type { Queryable } from '@rolelink/db/client';
import { healthHistory } from '@rolelink/db/health';

export type { PluginHealthView };

/** A plugin's health as recorded by the broker's poll (spec 2.5, 6.1), newest first; reads the database only. */
export async function readPluginHealth(db: Queryable, pluginUrl: string): Promise<PluginHealthView> {
  const rows = await healthHistory(db, pluginUrl);
  const history = rows.map((r) => ({
    status: r.status,
    checked_at: r.checkedAt.toISOString(),
    latency_ms: r.latencyMs,
    detail: (r.detail ?? null) as Record<string, unknown> | null,
  }));
  const latest = history[0] ?? null;
  return { plugin_url: pluginUrl, status: latest?.status ?? 'unknown', latest, history };
}
