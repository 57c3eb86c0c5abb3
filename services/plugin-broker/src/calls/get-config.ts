import { parseConfigResponse, type FieldError, type ParsedConfigResponse } from '@rolelink/contracts';
import { normalizePluginUrl } from '@rolelink/domain';
import type { CachedConfig } from '../config-cache';
import type { BrokerContext } from '../context';
import type { PluginLink } from '../links';
import { callPlugin, failureDetail, outcomeOf, parseJson } from './call-plugin';

export type GetConfigResult =
  | { ok: true; parsed: ParsedConfigResponse }
  | { ok: false; reason: 'unreachable'; detail: string }
  | { ok: false; reason: 'invalid_schema'; errors: FieldError[] };

const invalid = (field: string, message: string): GetConfigResult => ({
  ok: false,
  reason: 'invalid_schema',
  errors: [{ field, message }],
});

/**
 * One GET {plugin}/config, validated (spec 2.6 to 2.9, 2.11). No answer or a non-2xx status is
 * `unreachable`; an answer that is not a valid schema (including one past 50 KB) is `invalid_schema`.
 */
export async function getConfig(ctx: BrokerContext, link: PluginLink, timeoutMs: number): Promise<GetConfigResult> {
  let res;
  try {
    res = await callPlugin(
      ctx,
      'fetch-config',
      { method: 'GET', url: `${link.pluginUrl}/config`, token: link.token, accept: true, timeoutMs },
      (r) => (r.status >= 200 && r.status < 300 && r.truncated ? 'invalid_response' : outcomeOf(r.status)),
    );
  } catch (err) {
    return { ok: false, reason: 'unreachable', detail: failureDetail(err) };
  }
  if (res.status < 200 || res.status >= 300)
    return { ok: false, reason: 'unreachable', detail: `plugin answered ${res.status}` };
  if (res.truncated) return invalid('(body)', 'the response exceeds 50 KB');
  const body = parseJson(res.body);
  if (!body.ok) return invalid('(body)', 'the response is not JSON');
  // Embed URLs obey the plugin-URL host rules, with the same allow-list (local runs embed loopback pages).
  const parsed = parseConfigResponse(body.value, {
    isForbiddenHost: (u) => !normalizePluginUrl(u.origin, ctx.allowHosts).ok,
  });
  return parsed.ok
    ? { ok: true, parsed: parsed.value }
    : { ok: false, reason: 'invalid_schema', errors: parsed.errors };
}

/** The cacheable part of a valid answer: everything but `values`. */
export function structureOf(parsed: ParsedConfigResponse, fetchedAt: number): CachedConfig {
  return {
    fetchedAt,
    response:
      parsed.ui_mode === 'schema'
        ? { ui_mode: 'schema', structure: parsed.structure }
        : { ui_mode: 'iframe', iframe: parsed.iframe },
  };
}
