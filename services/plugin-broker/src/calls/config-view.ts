import type { ConfigView, FieldError } from '@rolelink/contracts';
import { embedUrlWithToken, mintIframeToken } from '@rolelink/plugin-sdk';
import type { CachedConfig } from '../config-cache';
import type { PluginLink } from '../links';

type ViewOptions = {
  source: ConfigView['source'];
  values?: Record<string, unknown>;
  viewerId?: string | undefined;
  fallback?: { reason: 'unreachable' | 'invalid_schema'; errors?: FieldError[] };
  now: number;
};

/** Keeps only values for non-display fields of the structure shown (a cached structure may lack newer keys). */
function valuesFor(
  entry: Extract<CachedConfig['response'], { ui_mode: 'schema' }>,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const keys = new Set(
    entry.structure.sections.flatMap((s) => s.fields.filter((f) => f.type !== 'display').map((f) => f.key)),
  );
  return Object.fromEntries(Object.entries(values).filter(([k]) => keys.has(k)));
}

/** Builds what fetchConfig answers; in iframe mode mints the viewer's rl_token (spec 4.3, 5.7). */
export function toConfigView(link: PluginLink, entry: CachedConfig, o: ViewOptions): ConfigView {
  const common = {
    source: o.source,
    fetched_at: new Date(entry.fetchedAt).toISOString(),
    ...(o.fallback
      ? { fallback_reason: o.fallback.reason, ...(o.fallback.errors ? { schema_errors: o.fallback.errors } : {}) }
      : {}),
  };
  const r = entry.response;
  if (r.ui_mode === 'schema')
    return { ...common, ui_mode: 'schema', schema: r.structure, values: valuesFor(r, o.values ?? {}) };
  const token =
    o.viewerId === undefined
      ? null
      : mintIframeToken({
          apiToken: link.token,
          pluginUrl: link.pluginUrl,
          viewerId: o.viewerId,
          guildId: link.guildId,
          roleId: link.roleId,
          now: new Date(o.now),
        });
  return {
    ...common,
    ui_mode: 'iframe',
    name: r.iframe.name,
    ...(r.iframe.description !== undefined ? { description: r.iframe.description } : {}),
    embed_url: token ? embedUrlWithToken(r.iframe.embed_url, token) : r.iframe.embed_url,
  };
}
