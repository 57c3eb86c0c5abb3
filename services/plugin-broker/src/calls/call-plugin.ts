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

/** A short, admin-safe reason for a 502 (our words, never the plugin's body). */
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
