import {
  PluginCallMessage,
  validateSubmission,
  type BrokerLinkRef,
  type BrokerSubmitResult,
  type PluginConfigSubmitBody,
} from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { CachedConfig } from '../config-cache';
import type { BrokerContext } from '../context';
import type { PluginLink } from '../links';
import { callPlugin, failureDetail, parseJson } from './call-plugin';
import { fetchFailure, requireLinkByRole } from './errors';
import { getConfig, structureOf } from './get-config';

export const IFRAME_SUBMIT_MESSAGE =
  'This plugin is configured in its embedded page (iframe mode); the form cannot be submitted';
export const INVALID_CONFIG_MESSAGE = 'Invalid configuration';

/** The structure to validate against: the cached one while fresh, else the plugin's latest (else any cached one). */
async function structureFor(ctx: BrokerContext, link: PluginLink): Promise<CachedConfig> {
  const cached = await ctx.cache.get(link.id);
  if (cached && ctx.cache.isFresh(cached, ctx.now())) return cached;
  const result = await getConfig(ctx, link, ctx.timeouts.fetchConfig);
  if (result.ok) {
    const latest = structureOf(result.parsed, ctx.now());
    await ctx.cache.set(link.id, latest);
    return latest;
  }
  if (cached) return cached;
  throw fetchFailure(result);
}

/** The plugin's own words for a 4xx (spec 4.2 rule 5): `error` or `message` of its JSON body, made safe to show. */
function pluginErrorText(body: Buffer, status: number): string {
  const parsed = parseJson(body);
  const obj =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? (parsed.value as Record<string, unknown>)
      : {};
  const text = typeof obj.error === 'string' ? obj.error : typeof obj.message === 'string' ? obj.message : '';
  // eslint-disable-next-line no-control-regex -- C0 controls and DEL are exactly what this strips
  const printable = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const clean = printable.trim().slice(0, 500);
  return clean || `plugin answered ${status}`;
}

function forwardedBody(body: Buffer, truncated: boolean): unknown {
  if (truncated || body.length === 0) return null;
  const parsed = parseJson(body);
  return parsed.ok ? parsed.value : body.toString('utf8');
}

/**
 * POST /config (spec 4.2 rule 3 and 5, 6): refused in iframe mode without calling the plugin, validated
 * against the form first, then sent with only the visible, non-display fields. With a stale cache the
 * schema fetch and the POST together take at most 5 s + 10 s, within the caller's 17 s.
 * This is the one place on the server where a config is checked and its link read: the caller
 * names the link by guild and role and passes the config as it parsed it; `validateSubmission` refuses
 * anything that is not an object of the form's fields.
 */
export async function submitConfig(
  ctx: BrokerContext,
  data: { link: BrokerLinkRef; config: unknown },
): Promise<BrokerSubmitResult> {
  const link = await requireLinkByRole(ctx, data.link);
  const entry = await structureFor(ctx, link);
  if (entry.response.ui_mode === 'iframe') throw new AppError(400, IFRAME_SUBMIT_MESSAGE, 'iframe_mode');
  const checked = validateSubmission(entry.response.structure, data.config);
  if (!checked.ok) throw AppError.fields(400, INVALID_CONFIG_MESSAGE, 'invalid_config', checked.errors);

  const failed = (detail: string) =>
    AppError.pluginFailure(502, PluginCallMessage.submit, 'plugin_submit_failed', detail);
  let res;
  try {
    res = await callPlugin(ctx, 'submit-config', {
      method: 'POST',
      url: `${link.pluginUrl}/config`,
      token: link.token,
      json: { guild_id: link.guildId, role_id: link.roleId, config: checked.config } satisfies PluginConfigSubmitBody,
      timeoutMs: ctx.timeouts.submitConfig,
    });
  } catch (err) {
    throw failed(failureDetail(err));
  }
  if (res.status >= 200 && res.status < 300)
    return { status: res.status, body: forwardedBody(res.body, res.truncated) };
  if (res.status >= 400 && res.status < 500) {
    const message = `${PluginCallMessage.submit}: ${pluginErrorText(res.body, res.status)}`;
    throw new AppError(res.status, message, 'plugin_rejected_config');
  }
  throw failed(`plugin answered ${res.status}`);
}
