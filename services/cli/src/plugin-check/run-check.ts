import { randomInt } from 'node:crypto';
import {
  parseConfigResponse,
  pluginHealthReport,
  registerAnswer,
  subscribedKinds,
  validateSubmission,
  type ConfigStructure,
  type PluginConfigSubmitBody,
  type PluginLinkBody,
  type PluginRegisterBody,
} from '@rolelink/contracts';
import { generateToken, normalizePluginUrl } from '@rolelink/domain';
import { PluginCallFailure, PluginHttp, type FailureKind, type PluginRequest } from '@rolelink/plugin-http';
import { mintIframeToken } from '@rolelink/plugin-sdk';
import { checkEvents } from './check-events';
import type { CheckReport, Finding } from './report';
import { tlsHint } from './tls-hint';

/**
 * `rolelink plugin check <url>`: the calls the service makes to a plugin (spec 4.2), in its order,
 * judged with the service's own validators, against a throw-away link the plugin is told about and
 * then told to forget. Every step reports; a step that cannot run (no schema) is skipped, not failed.
 */
export type CheckOptions = {
  /** Hosts allowed despite being private (ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS): local plugins. */
  allowHosts: readonly string[];
  /** PEM of a CA to trust for this check only (a local plugin's self-signed certificate). */
  ca?: string;
};

// Spec 4.2 and 8: timeouts per call (bodies are capped at 50 KB by PluginHttp, as in the broker). A call
// past its timeout is a failure, as it is for the service: /health included (5 s), since the broker's poll
// then records the plugin as unreachable (docs/cli.md).
const LIMITS = {
  register: 5_000,
  getConfig: 5_000,
  postConfig: 10_000,
  deleteConfig: 5_000,
  health: 5_000,
  embedPageBytes: 5 * 1024 * 1024,
} as const;

/** What the check reads of an answer. */
type PluginAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  overCap: boolean;
  ms: number;
};

/** A call that got no usable answer: why (PluginHttp's kinds), and the text the report shows. */
class NoAnswer {
  constructor(
    readonly kind: FailureKind | 'other',
    readonly message: string,
  ) {}
}

const fakeSnowflake = () => `${randomInt(1, 9)}${Array.from({ length: 18 }, () => randomInt(0, 10)).join('')}`;

export async function runPluginCheck(rawUrl: string, options: CheckOptions): Promise<CheckReport> {
  const findings: Finding[] = [];
  const add = (f: Finding) => void findings.push(f);
  const base = rawUrl.replace(/\/+$/, '');
  const report = (ui_mode: CheckReport['ui_mode']): CheckReport => ({
    plugin_url: base,
    ok: !findings.some((f) => f.result === 'fail'),
    ui_mode,
    findings,
  });

  const normalized = normalizePluginUrl(base, options.allowHosts);
  if (!normalized.ok) {
    const local = /private|internal|localhost/i.test(normalized.reason) && /^https:/.test(base);
    add({
      check: 'plugin URL',
      result: local ? 'warn' : 'fail',
      message: local
        ? `${normalized.reason}: the service refuses it unless ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS lists the host (fine for local testing)`
        : normalized.reason,
    });
    if (!local) return report(null);
  } else if (!normalizePluginUrl(base).ok) {
    add({
      check: 'plugin URL',
      result: 'warn',
      message:
        'a private host, accepted only because ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS lists it (a production service refuses it)',
    });
  } else add({ check: 'plugin URL', result: 'pass', message: 'HTTPS, public host, no credentials or query' });

  const token = generateToken();
  const link: PluginLinkBody = { guild_id: fakeSnowflake(), role_id: fakeSnowflake() };
  // The broker's own plugin client (SSRF guard, no redirects, the same headers and caps), so the check
  // judges the calls the service really makes. The checked host is allowed even when private: asking it
  // is the point, and the URL finding above already says whether the service would accept it.
  const http = new PluginHttp({
    allowHosts: [...options.allowHosts, new URL(base).hostname],
    ...(options.ca ? { ca: options.ca } : {}),
  });
  // A TLS failure repeats on every call: the first one says what to do about it.
  let tlsExplained = false;
  const call = async (req: PluginRequest): Promise<PluginAnswer | NoAnswer> => {
    try {
      const res = await http.request(req);
      return {
        status: res.status,
        headers: res.headers,
        text: res.body.toString('utf8'),
        overCap: res.truncated,
        ms: Math.round(res.durationMs),
      };
    } catch (err) {
      if (!(err instanceof PluginCallFailure)) return new NoAnswer('other', (err as Error).message);
      const hint = tlsExplained ? null : await tlsHint(err.code, base, options.ca !== undefined);
      if (hint) tlsExplained = true;
      return new NoAnswer(err.kind, hint ? `${err.message}; ${hint}` : err.message);
    }
  };
  try {
    return await runCalls(base, { token, link, call, add, report, allowHosts: options.allowHosts });
  } finally {
    http.close();
  }
}

type CallContext = {
  token: string;
  link: PluginLinkBody;
  call: (req: PluginRequest) => Promise<PluginAnswer | NoAnswer>;
  add: (f: Finding) => void;
  report: (uiMode: CheckReport['ui_mode']) => CheckReport;
  allowHosts: readonly string[];
};

async function runCalls(
  base: string,
  { token, link, call, add, report, allowHosts }: CallContext,
): Promise<CheckReport> {
  const describe = (a: PluginAnswer | NoAnswer) =>
    a instanceof NoAnswer ? `no answer: ${a.message}` : `answered ${a.status} in ${a.ms} ms`;
  const is2xx = (a: PluginAnswer | NoAnswer): a is PluginAnswer =>
    !(a instanceof NoAnswer) && a.status >= 200 && a.status < 300;

  // 1. Register with a throw-away token, with the body link creation sends (a new role without holders).
  const registered = await call({
    method: 'POST',
    url: `${base}/register`,
    token,
    json: { ...link, member_mode: 'handover', current_holders: 0 } satisfies PluginRegisterBody,
    timeoutMs: LIMITS.register,
  });
  add({
    check: 'POST /register',
    result: is2xx(registered) ? 'pass' : 'fail',
    message: `${describe(registered)}${is2xx(registered) ? '' : ' (the service would answer the admin 502 and not create the link)'}`,
  });
  // The event kinds it asks for, from this answer and (below) its health report.
  const wanted: string[] = [];
  if (is2xx(registered)) {
    const answer = registerAnswer.safeParse(parseOrNull(registered.text));
    if (answer.success && answer.data.events) wanted.push(...answer.data.events);
  }

  // 2. The configuration answer, validated as the broker validates it.
  const config = await call({ method: 'GET', url: `${base}/config`, token, accept: true, timeoutMs: LIMITS.getConfig });
  let structure: ConfigStructure | null = null;
  let uiMode: CheckReport['ui_mode'] = null;
  let embedUrl: string | null = null;
  if (!is2xx(config)) add({ check: 'GET /config', result: 'fail', message: describe(config) });
  else if (config.overCap) add({ check: 'GET /config', result: 'fail', message: 'body over 50 KB' });
  else {
    let body: unknown;
    try {
      body = JSON.parse(config.text);
    } catch {
      body = undefined;
    }
    const parsed =
      body === undefined
        ? null
        : parseConfigResponse(body, { isForbiddenHost: (u) => !normalizePluginUrl(u.origin, allowHosts).ok });
    if (!parsed) add({ check: 'GET /config', result: 'fail', message: 'body is not JSON' });
    else if (!parsed.ok)
      add({
        check: 'GET /config',
        result: 'fail',
        message: `the service would refuse this schema (${parsed.errors.length} problem${parsed.errors.length > 1 ? 's' : ''})`,
        errors: parsed.errors,
      });
    else if (parsed.value.ui_mode === 'schema') {
      uiMode = 'schema';
      structure = parsed.value.structure;
      const fieldCount = structure.sections.reduce((n, s) => n + s.fields.length, 0);
      add({
        check: 'GET /config',
        result: 'pass',
        message: `${describe(config)}: schema "${structure.name}", ${structure.sections.length} section(s), ${fieldCount} field(s)`,
      });
    } else {
      uiMode = 'iframe';
      embedUrl = parsed.value.iframe.embed_url;
      add({ check: 'GET /config', result: 'pass', message: `${describe(config)}: iframe mode, embed_url ${embedUrl}` });
    }
  }

  // 3. Schema mode: submit the form's defaults (after the service's own submission check).
  if (structure) {
    const defaults: Record<string, unknown> = {};
    for (const f of structure.sections.flatMap((s) => s.fields)) {
      if (f.type !== 'display' && 'default_value' in f && f.default_value !== undefined)
        defaults[f.key] = f.default_value;
    }
    const checked = validateSubmission(structure, defaults);
    if (!checked.ok) {
      add({
        check: 'POST /config',
        result: 'warn',
        message:
          "the form's defaults alone do not pass the form's rules (an admin must fill required fields); not submitted",
        errors: checked.errors,
      });
    } else {
      const saved = await call({
        method: 'POST',
        url: `${base}/config`,
        token,
        json: { ...link, config: checked.config } satisfies PluginConfigSubmitBody,
        timeoutMs: LIMITS.postConfig,
      });
      const detail =
        saved instanceof NoAnswer
          ? ''
          : (() => {
              try {
                const b = JSON.parse(saved.text) as { error?: unknown; message?: unknown };
                return typeof b.error === 'string'
                  ? `: ${b.error}`
                  : typeof b.message === 'string'
                    ? `: ${b.message}`
                    : '';
              } catch {
                return '';
              }
            })();
      add({
        check: 'POST /config',
        result: is2xx(saved) ? 'pass' : 'fail',
        message: `defaults ${JSON.stringify(checked.config)} ${describe(saved)}${detail}`,
      });
    }
  } else if (uiMode === 'iframe' && embedUrl) {
    // 3'. Iframe mode: the page must let the dashboard frame it (spec 4.3).
    const framed = new URL(embedUrl);
    framed.searchParams.set(
      'rl_token',
      mintIframeToken({
        apiToken: token,
        pluginUrl: base,
        viewerId: fakeSnowflake(),
        guildId: link.guild_id,
        roleId: link.role_id,
      }),
    );
    const page = await call({
      method: 'GET',
      url: framed.toString(),
      timeoutMs: LIMITS.getConfig,
      maxBodyBytes: LIMITS.embedPageBytes,
    });
    if (page instanceof NoAnswer || page.status !== 200)
      add({ check: 'embed page', result: 'fail', message: `GET embed_url with a valid rl_token ${describe(page)}` });
    else {
      const csp = [page.headers['content-security-policy'] ?? ''].flat().join(', ');
      const ancestors = /frame-ancestors\s+([^;,]+)/i.exec(csp)?.[1]?.trim();
      const xfo = [page.headers['x-frame-options'] ?? ''].flat().join(',').trim();
      add({
        check: 'frame-ancestors',
        result: ancestors ? 'pass' : 'fail',
        message: ancestors
          ? `frame-ancestors ${ancestors}`
          : 'no Content-Security-Policy frame-ancestors: the page must name the dashboard origin',
      });
      add({
        check: 'X-Frame-Options',
        result: /deny|sameorigin/i.test(xfo) ? 'fail' : 'pass',
        message: xfo
          ? `X-Frame-Options: ${xfo}${/deny|sameorigin/i.test(xfo) ? ' blocks the dashboard' : ''}`
          : 'not sent',
      });
    }
  } else add({ check: 'POST /config', result: 'skip', message: 'no valid configuration answer' });

  // 4. Health, unauthenticated (recommended, not required).
  const health = await call({ method: 'GET', url: `${base}/health`, timeoutMs: LIMITS.health });
  if (health instanceof NoAnswer && health.kind === 'timeout') {
    add({
      check: 'GET /health',
      result: 'fail',
      message: `${describe(health)}: past the spec's ${LIMITS.health / 1000} s health timeout the service records the plugin as unreachable, as if it had no /health`,
    });
  } else if (health instanceof NoAnswer || health.status === 404)
    add({
      check: 'GET /health',
      result: 'warn',
      message: `${describe(health)}: the status page will show the plugin as unreachable`,
    });
  else {
    let body: unknown = null;
    try {
      body = JSON.parse(health.text);
    } catch {
      /* judged below */
    }
    const parsed = pluginHealthReport.safeParse(body);
    if (health.status !== 200 || !parsed.success) {
      add({
        check: 'GET /health',
        result: 'fail',
        message: `${describe(health)}, not a health report`,
        errors: parsed.success
          ? []
          : parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(root)', message: i.message })),
      });
    } else
      add({
        check: 'GET /health',
        result: parsed.data.status === 'healthy' ? 'pass' : 'warn',
        message: `${describe(health)}: ${parsed.data.status}`,
      });
    if (parsed.success && parsed.data.events) wanted.push(...parsed.data.events);
  }

  // 4b. Events, when the plugin asked for any (docs/api.md "Events to plugins"): a signed test event.
  const kinds = subscribedKinds(wanted);
  // A plugin that asks for none gets no finding at all: its report reads as before.
  if (kinds.length > 0) await checkEvents(base, { token, link, call, add, describe, is2xx, kinds });

  // 5. Forget the throw-away link (as link deletion does; the service ignores the answer).
  const deleted = await call({
    method: 'DELETE',
    url: `${base}/config`,
    token,
    json: link,
    timeoutMs: LIMITS.deleteConfig,
  });
  add({
    check: 'DELETE /config',
    result: is2xx(deleted) ? 'pass' : 'warn',
    message: `${describe(deleted)}${is2xx(deleted) ? '' : ' (the service ignores it, but the plugin keeps a dead token)'}`,
  });

  return report(uiMode);
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
