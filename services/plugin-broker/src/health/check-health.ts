import { pluginHealthReport, type PluginHealthStatus } from '@rolelink/contracts';
import { formatPath } from '@rolelink/contracts';
import type { BrokerContext } from '../context';
import { PluginCallFailure } from '@rolelink/plugin-http';
import { callPlugin, parseJson } from '../calls/call-plugin';

/** `events`: the kinds the report listed (absent when it listed none: subscriptions stay as they are). */
export type HealthResult = {
  status: PluginHealthStatus;
  latencyMs: number | null;
  detail: Record<string, unknown>;
  events?: string[];
};

const unreachable = (reason: string, extra: Record<string, unknown> = {}): HealthResult => ({
  status: 'unreachable',
  latencyMs: null,
  detail: { reason, ...extra },
});

/**
 * GET {plugin}/health without Authorization, 5 s (spec 2.5, 4.2). A valid report gives its status; a
 * missing endpoint, no answer, or an invalid report is `unreachable`, with the reason in `detail`.
 * A 503 carrying a valid report counts as that report (health endpoints often answer 503 when unhealthy).
 */
export async function checkPluginHealth(ctx: BrokerContext, pluginUrl: string): Promise<HealthResult> {
  let res;
  try {
    res = await callPlugin(ctx, 'health', {
      method: 'GET',
      url: `${pluginUrl}/health`,
      timeoutMs: ctx.timeouts.health,
    });
  } catch (err) {
    return unreachable(err instanceof PluginCallFailure ? err.kind : 'network', {
      message: err instanceof Error ? err.message : String(err),
    });
  }
  if (res.status !== 200 && res.status !== 503) return unreachable('http_status', { http_status: res.status });
  if (res.truncated) return unreachable('invalid_report', { message: 'the report exceeds 50 KB' });
  const body = parseJson(res.body);
  if (!body.ok) return unreachable('invalid_report', { message: 'the report is not JSON' });
  const report = pluginHealthReport.safeParse(body.value);
  if (!report.success) {
    return unreachable('invalid_report', {
      errors: report.error.issues.slice(0, 10).map((i) => ({ field: formatPath(i.path), message: i.message })),
    });
  }
  const { status, events, ...rest } = report.data;
  return { status, latencyMs: Math.round(res.durationMs), detail: rest, ...(events !== undefined ? { events } : {}) };
}
