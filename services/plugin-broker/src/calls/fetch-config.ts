import type { ConfigView } from '@rolelink/contracts';
import type { BrokerContext } from '../context';
import { toConfigView } from './config-view';
import { fetchFailure, requireLink } from './errors';
import { getConfig, structureOf } from './get-config';

type FetchInput = { linkId: string; refresh: boolean; viewerId?: string };

/**
 * GET /config for the dashboard (spec 4.2 rule 2, 3.4). The plugin is always asked, because `values`
 * are always fresh; the structure shown is the cached one while it is under 5 minutes old and of the
 * same ui_mode (the latest answer's mode wins), unless a refresh is forced. When the plugin is
 * unreachable or answers an invalid schema, the last good structure is shown without values; with no
 * cached structure the dashboard gets the 502 of spec 7.
 */
export async function fetchConfig(ctx: BrokerContext, input: FetchInput): Promise<ConfigView> {
  const link = await requireLink(ctx, input.linkId);
  const [cached, result] = await Promise.all([ctx.cache.get(link.id), getConfig(ctx, link, ctx.timeouts.fetchConfig)]);
  const now = ctx.now();
  if (!result.ok) {
    if (!cached) throw fetchFailure(result);
    return toConfigView(link, cached, {
      source: 'fallback',
      viewerId: input.viewerId,
      now,
      fallback:
        result.reason === 'unreachable'
          ? { reason: 'unreachable' }
          : { reason: 'invalid_schema', errors: result.errors },
    });
  }
  const latest = structureOf(result.parsed, now);
  const reuse =
    !input.refresh &&
    cached !== null &&
    ctx.cache.isFresh(cached, now) &&
    cached.response.ui_mode === latest.response.ui_mode;
  if (!reuse) await ctx.cache.set(link.id, latest);
  const values = result.parsed.ui_mode === 'schema' ? result.parsed.values : {};
  return toConfigView(link, reuse ? cached : latest, {
    source: reuse ? 'cache' : 'plugin',
    values,
    viewerId: input.viewerId,
    now,
  });
}
