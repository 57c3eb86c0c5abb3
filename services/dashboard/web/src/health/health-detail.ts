import type { PluginHealthCheckView } from '@rolelink/contracts';

/**
 * Reads a recorded health check's `detail` (the plugin's report, spec 2.5, or `{ reason }` when the
 * plugin was unreachable). The report came from a plugin, so every property is checked, not assumed.
 */

export type CheckRow = {
  name: string;
  status: 'up' | 'down' | 'unknown';
  latency_ms: number | null;
  message: string | null;
};
export type ServiceRow = { name: string; status: 'up' | 'down' | 'unknown'; latency_ms: number | null };
export type HealthDetail = {
  timestamp: string | null;
  reason: string | null;
  checks: CheckRow[];
  services: ServiceRow[];
};

function upDown(value: unknown): 'up' | 'down' | 'unknown' {
  return value === 'up' || value === 'down' ? value : 'unknown';
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readHealthDetail(detail: Record<string, unknown> | null | undefined): HealthDetail {
  const d = isRecord(detail) ? detail : {};
  const checks = isRecord(d.checks)
    ? Object.entries(d.checks).map(([name, c]) => {
        const r = isRecord(c) ? c : {};
        return { name, status: upDown(r.status), latency_ms: num(r.latency_ms), message: str(r.message) };
      })
    : [];
  const services = Array.isArray(d.services)
    ? d.services
        .filter(isRecord)
        .map((s) => ({ name: str(s.name) ?? '(unnamed)', status: upDown(s.status), latency_ms: num(s.latency_ms) }))
    : [];
  return { timestamp: str(d.timestamp), reason: str(d.reason), checks, services };
}

/** "3 of 4 up", or null when there is nothing to count. */
export function upSummary(rows: readonly { status: string }[]): string | null {
  if (rows.length === 0) return null;
  return `${rows.filter((r) => r.status === 'up').length} of ${rows.length} up`;
}

/** The newest check in which the plugin answered at all (any status but unreachable). */
export function lastSeen(history: readonly PluginHealthCheckView[]): string | null {
  let best: string | null = null;
  for (const h of history)
    if (h.status !== 'unreachable' && (best === null || Date.parse(h.checked_at) > Date.parse(best)))
      best = h.checked_at;
  return best;
}
