import { z } from 'zod';
import { eventKindsList } from './events';

/** Plugin health report, GET {plugin}/health (spec 2.5). A body with only `status` is valid. */
export const pluginHealthReport = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  timestamp: z.iso.datetime({ offset: true }).optional(),
  checks: z
    .record(
      z.string(),
      z.object({ status: z.enum(['up', 'down']), latency_ms: z.number().optional(), message: z.string().optional() }),
    )
    .optional(),
  services: z
    .array(z.object({ name: z.string(), status: z.enum(['up', 'down']), latency_ms: z.number().optional() }))
    .optional(),
  /** Event kinds the plugin wants for all its links (docs/api.md "Events to plugins"); absent leaves them as they are. */
  events: eventKindsList.optional(),
});
export type PluginHealthReport = z.infer<typeof pluginHealthReport>;

/** What the service records per check: the report's status, or `unreachable` when there is no valid report. */
export const PLUGIN_HEALTH_STATUSES = ['healthy', 'degraded', 'unhealthy', 'unreachable'] as const;
export type PluginHealthStatus = (typeof PLUGIN_HEALTH_STATUSES)[number];

/** One recorded check, as the CLI and dashboard show it. */
export type PluginHealthCheckView = {
  status: PluginHealthStatus;
  checked_at: string;
  latency_ms: number | null;
  /** The report (`timestamp`, `checks`, `services`) or, when unreachable, `{ reason }`. */
  detail: Record<string, unknown> | null;
};
