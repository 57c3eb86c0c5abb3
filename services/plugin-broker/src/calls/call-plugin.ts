import type { BrokerContext, PluginCallName } from '../context';
import { PluginCallFailure } from '@rolelink/plugin-http';
import type { PluginRequest, PluginResponse } from '@rolelink/plugin-http';

type Outcome = 'ok' | 'http_4xx' | 'http_5xx' | 'timeout' | 'network' | 'blocked' | 'invalid_response';

export function outcomeOf(status: number): Outcome {
  if (status >= 200 && status < 300) return 'ok';
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}

/** Makes one plugin call and records rolelink_plugin_calls_total / _duration_seconds for it. */
export async function callPlugin(
  ctx: BrokerContext,
  call: PluginCallName,
  req: PluginRequest,
  judge: (res: PluginResponse) => Outcome = (res) => outcomeOf(res.status),
): Promise<PluginResponse> {
  const started = performance.now();
  let outcome: Outcome = 'network';
  try {
    const res = await ctx.http.request(req);
    outcome = judge(res);
    return res;
  } catch (err) {
    if (err instanceof PluginCallFailure) outcome = err.kind === 'redirect' ? 'invalid_response' : err.kind;
    ctx.logger.info(`plugin ${call} failed`, { url: req.url, error: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    ctx.metrics?.pluginCalls().inc({ call, outcome });
    ctx.metrics?.pluginCallDuration().observe({ call }, (performance.now() - started) / 1000);
  }
}

/** How much of a refusing plugin's body an admin is shown (bodyExcerpt). */
export const BODY_EXCERPT_CHARS = 300;

/**
 * The start of a plugin's answer body, safe to print in a terminal or a page: control characters
 * (C0, DEL, C1) and bidirectional overrides become spaces, runs of white space one space, and at most
 * `max` characters are kept (the last one an ellipsis when cut). Empty when the body has no text.
 */
export function bodyExcerpt(body: Buffer, max = BODY_EXCERPT_CHARS): string {
  // Four bytes per character at most: no more of a large body is decoded than can be shown.
  const text = body.subarray(0, max * 4).toString('utf8');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\s]+/g, ' ').trim();
  const chars = Array.from(clean);
  return chars.length > max || body.length > max * 4 ? `${chars.slice(0, max - 1).join('')}…` : clean;
}

/**
 * What a refusing plugin answered, for the admin: its status and the start of its body (bodyExcerpt),
 * e.g. `plugin answered 403: {"error":"unknown token"}`.
 */
export function refusalDetail(status: number, body: Buffer): string {
  const excerpt = bodyExcerpt(body);
  return excerpt ? `plugin answered ${status}: ${excerpt}` : `plugin answered ${status} with an empty body`;
}

/** A short, admin-safe reason for a failed call (our words: the plugin's body is only in refusalDetail). */
export function failureDetail(err: unknown): string {
  if (err instanceof PluginCallFailure) return err.message;
  return 'unexpected error';
}

export function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}
