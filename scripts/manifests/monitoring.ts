// k8s/monitoring (PodMonitor, PrometheusRule, the Grafana dashboard): kinds of the Prometheus Operator, which
// kubernetes-models does not know, so their content is checked with Prometheus's own promtool instead:
//   - the PrometheusRule's groups with `promtool check rules` and its unit tests (alerts.test.yaml) with
//     `promtool test rules`;
//   - every query of the dashboard, as recording rules through `promtool check rules` (PromQL syntax);
//   - every metric of ours they name exists (MetricName in packages/runtime), and every alert has a runbook
//     section in docs/operations.md that its runbook_url points at: an absolute URL, runbooks.yaml's baseUrl
//     followed by /operations.md#<the alert's heading anchor>; an overlay that sets another base leaves no
//     runbook_url on the placeholder (runbookOverlayProblems);
//   - every series an alert reads has an absent() alert (absentCoverage).
// Without promtool, says so and checks only the last point.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { MetricName } from '../../packages/runtime/src/metrics';
import { markdownAnchors } from '../support/markdown';
import { asArray, at, get, type Manifest, type Problem } from './types';

const ROOT = path.resolve(__dirname, '..', '..');
/** The Compose stack's Prometheus: its scrape config, loading the same rules. */
const COMPOSE_PROMETHEUS = path.join(ROOT, 'scripts', 'deploy', 'prometheus.yml');
const OURS = new Set<string>(Object.values(MetricName));
const HISTOGRAM_SUFFIX = /_(bucket|count|sum)$/;

/** Names of our metrics (rolelink_…, http_…) in a PromQL expression that no service registers. */
function unknownMetrics(expr: string): string[] {
  return [...expr.matchAll(/\b(?:rolelink|http)_[a-z_]+\b/g)]
    .map((m) => m[0])
    .filter((name) => !OURS.has(name) && !OURS.has(name.replace(HISTOGRAM_SUFFIX, '')));
}

function promtool(args: string[], cwd: string): { ok: true } | { ok: false; out: string } | null {
  try {
    execFileSync('promtool', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    return { ok: true };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') return null;
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() };
  }
}

/**
 * Series an alert may read without an absent() rule of their own: the event counters, which appear with
 * their first event (a fresh install has none, and absent() would page it). Their owner's always-present
 * rolelink_dependency_up{service} stands for them: it must have its absent() rule.
 */
const EVENT_SERIES: Record<string, string[]> = {
  rolelink_role_changes_total: ['bot-worker'],
  rolelink_platform_invalid_requests_total: ['bot-worker'],
  rolelink_platform_rate_limited_total: ['bot-worker'],
  // Registered by the bot worker at start (a counter without labels, a gauge read at scrape time): present
  // whenever the worker is scraped, so its rolelink_dependency_up stands for them too.
  rolelink_platform_edge_bans_total: ['bot-worker'],
  rolelink_platform_edge_ban_seconds: ['bot-worker'],
  rolelink_job_duration_seconds: ['bot-worker', 'plugin-broker'],
  rolelink_plugin_calls_total: ['plugin-broker'],
  // A counter of refused repair reads, and a gauge with one series per reason of a blocked link
  // (none while no link is blocked): both empty on a healthy install.
  rolelink_repair_blocked_total: ['bot-worker'],
  rolelink_links_blocked: ['bot-worker'],
};

/** Series names in a PromQL expression: ours, Node's defaults, up, and the cluster's (cAdvisor, kube-state-metrics). */
function seriesNames(expr: string): string[] {
  return [...expr.matchAll(/\b(up|(?:rolelink|http|nodejs|container|kube)_[a-z0-9_]+)\b/g)].map((m) =>
    (m[1] as string).replace(HISTOGRAM_SUFFIX, ''),
  );
}

/**
 * No silent alerts: every series an alert reads has an absent() rule (or, for an event
 * counter, its owner's rolelink_dependency_up has one), so a missing series pages instead of leaving its
 * alert quietly green.
 */
function absentCoverage(rules: unknown[], fail: (where: string, message: string) => void): void {
  const absentExprs = rules.map((r) => String(get(r, 'expr'))).filter((e) => /^absent\(/.test(e));
  const covered = new Set(absentExprs.flatMap(seriesNames));
  const ownerCovered = (service: string) =>
    absentExprs.some((e) => e.includes('rolelink_dependency_up') && e.includes(`service="${service}"`));
  for (const rule of rules) {
    const expr = String(get(rule, 'expr'));
    if (get(rule, 'alert') === undefined || /^absent\(/.test(expr)) continue;
    for (const name of new Set(seriesNames(expr))) {
      const owners = EVENT_SERIES[name];
      if (owners ? owners.every(ownerCovered) : covered.has(name)) continue;
      fail(
        String(get(rule, 'alert')),
        owners
          ? `reads ${name}, whose owners' rolelink_dependency_up{service=…} need an absent() rule (${owners.join(', ')})`
          : `reads ${name}, which has no absent() rule: the alert would stay silent without it`,
      );
    }
  }
}

/** The runbooks' base URL, runbooks.yaml's baseUrl: absolute, without a trailing slash. */
function runbookBaseUrl(dir: string, problems: Problem[]): string {
  const file = path.join(dir, 'runbooks.yaml');
  const base = existsSync(file) ? get(parse(readFileSync(file, 'utf8')), 'data', 'baseUrl') : undefined;
  if (typeof base !== 'string' || !/^https?:\/\/[^/]+/.test(base) || base.endsWith('/')) {
    problems.push({
      file: 'monitoring',
      where: 'runbooks.yaml',
      message: `data.baseUrl must be an absolute URL without a trailing slash (the docs/ directory as a browser opens it), not ${JSON.stringify(base)}`,
    });
    return String(base);
  }
  return base;
}

/** The base the test overlay (scripts/manifests/runbooks-overlay) sets, as a deployer's would. */
const OVERLAY_RUNBOOK_BASE = 'https://git.acme.internal/ops/role-link-service/-/blob/v0.2.0/docs';
const PLACEHOLDER_URL = /:\/\/([^/]*\.)?(invalid|example\.(com|org|net))(\/|$)/;

/**
 * Renders k8s/monitoring under an overlay that sets its own runbook base (over a copy, as ../base): every
 * runbook_url must then start with that base, none left on a placeholder. Null without kubectl.
 */
export function runbookOverlayProblems(dir: string, problems: Problem[]): string | null {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-runbooks-'));
  try {
    cpSync(dir, path.join(tmp, 'base'), { recursive: true });
    cpSync(path.join(ROOT, 'scripts', 'manifests', 'runbooks-overlay'), path.join(tmp, 'overlay'), { recursive: true });
    let text: string;
    try {
      text = execFileSync('kubectl', ['kustomize', path.join(tmp, 'overlay')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') return null;
      problems.push({ file: 'monitoring overlay', where: 'render', message: (e.stderr ?? e.message).trim() });
      return 'runbook overlay not rendered';
    }
    const urls = [...text.matchAll(/runbook_url: (\S+)/g)].map((m) => m[1] as string);
    for (const url of urls)
      if (!url.startsWith(`${OVERLAY_RUNBOOK_BASE}/operations.md#`) || PLACEHOLDER_URL.test(url))
        problems.push({
          file: 'monitoring overlay',
          where: 'PrometheusRule/rolelink',
          message: `runbook_url ${url} is not on the overlay's baseUrl (${OVERLAY_RUNBOOK_BASE}): copy runbooks.yaml's baseUrl into it (components/runbooks)`,
        });
    if (!urls.length)
      problems.push({ file: 'monitoring overlay', where: 'render', message: 'renders no runbook_url at all' });
    return `runbooks: an overlay's baseUrl reaches all ${urls.length} runbook_url(s)`;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** `dir` is k8s/monitoring; `rendered` its objects as kubectl kustomize renders them. Returns what was checked. */
export function monitoringChecks(dir: string, rendered: Manifest[], problems: Problem[]): string {
  const rules = rendered.filter((m) => m.doc.kind === 'PrometheusRule');
  const dashboards = rendered.filter(
    (m) => m.doc.kind === 'ConfigMap' && get(m.doc, 'metadata', 'labels', 'grafana_dashboard') !== undefined,
  );
  if (!rules.length)
    problems.push({ file: 'monitoring', where: 'PrometheusRule', message: 'k8s/monitoring renders no PrometheusRule' });
  if (!dashboards.length)
    problems.push({
      file: 'monitoring',
      where: 'ConfigMap',
      message: 'k8s/monitoring renders no Grafana dashboard ConfigMap (label grafana_dashboard)',
    });

  // The alerts select Role Link targets by `system="rolelink"` (not Kubernetes' namespace label): both
  // scrape configs, the PodMonitor's and the Compose stack's Prometheus's, must set it.
  const setsSystem = (relabels: unknown[], key: string) =>
    relabels.some((r) => get(r, key) === 'system' && get(r, 'replacement') === 'rolelink');
  for (const m of rendered.filter((x) => x.doc.kind === 'PodMonitor')) {
    if (
      !asArray(get(m.doc, 'spec', 'podMetricsEndpoints')).every((e) =>
        setsSystem(asArray(get(e, 'relabelings')), 'targetLabel'),
      )
    ) {
      problems.push({
        file: 'monitoring',
        where: at(m),
        message:
          'every podMetricsEndpoint must set system="rolelink" (relabelings), the label the alerts select targets by',
      });
    }
  }
  const composeConfig = parse(readFileSync(COMPOSE_PROMETHEUS, 'utf8')) as unknown;
  if (
    !asArray(get(composeConfig, 'scrape_configs')).every((c) =>
      setsSystem(asArray(get(c, 'relabel_configs')), 'target_label'),
    )
  ) {
    problems.push({
      file: 'monitoring',
      where: 'scripts/deploy/prometheus.yml',
      message:
        'every scrape config must set system="rolelink" (relabel_configs), the label the alerts select targets by',
    });
  }

  const runbooks = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const anchors = markdownAnchors(runbooks);
  const runbookBase = runbookBaseUrl(dir, problems);
  const alerts = rules.flatMap((r) =>
    asArray(get(r.doc, 'spec', 'groups')).flatMap((g) => asArray(get(g, 'rules')).map((rule) => ({ r, rule }))),
  );
  for (const { r, rule } of alerts) {
    const name = String(get(rule, 'alert') ?? get(rule, 'record'));
    const fail = (message: string) => problems.push({ file: 'monitoring', where: `${at(r)} ${name}`, message });
    for (const m of unknownMetrics(String(get(rule, 'expr'))))
      fail(`expression names ${m}, which no service registers (packages/runtime/src/metrics.ts)`);
    // The deployer names the namespace (the kustomization's `namespace:`): a rule that names one goes
    // silent, or fires falsely, anywhere else. Role Link's pods are those of up{system="rolelink"}.
    const namespaceLiteral = /\bnamespace\s*(=~?|!~)\s*"([^"]+)"/.exec(String(get(rule, 'expr')));
    if (namespaceLiteral)
      fail(
        `expression selects namespace${namespaceLiteral[1]}"${namespaceLiteral[2]}": select Role Link's pods with "and on (namespace, pod) up{system="rolelink"}" instead`,
      );
    if (get(rule, 'alert') === undefined) continue;
    const url = String(get(rule, 'annotations', 'runbook_url'));
    const expected = `${runbookBase}/operations.md#${name.toLowerCase()}`;
    if (!/^https?:\/\/[^/]/.test(url))
      fail(`runbook_url ${url} must be absolute (an alert page opens it outside the repository): ${expected}`);
    else if (url !== expected)
      fail(`runbook_url ${url} must be runbooks.yaml's baseUrl followed by /operations.md#<alert>: ${expected}`);
    const anchor = url.split('#')[1] ?? '';
    if (!anchors.has(anchor)) fail(`runbook_url's anchor #${anchor} is no heading of docs/operations.md`);
    const section = new RegExp(`^#+ ${name}\\n([\\s\\S]*?)(?=\\n#+ |$(?![\\s\\S]))`, 'm').exec(runbooks)?.[1];
    if (section === undefined) fail(`docs/operations.md has no runbook section "${name}"`);
    // What the operator cannot see meanwhile, and where to start on either platform.
    else if (
      !/\*\*Blind while it fires:\*\*/.test(section) ||
      !/Compose: .*`docker compose /.test(section) ||
      !/Kubernetes: .*`kubectl /.test(section)
    ) {
      fail(
        `its runbook section must say what is blind while it fires (**Blind while it fires:**) and give first steps for Compose and for kubectl`,
      );
    }
  }
  absentCoverage(
    alerts.map((a) => a.rule),
    (where, message) => problems.push({ file: 'monitoring', where, message }),
  );
  const queries = dashboards.flatMap((d) =>
    Object.values((get(d.doc, 'data') ?? {}) as Record<string, string>).flatMap((json) => {
      const panels = asArray((JSON.parse(json) as { panels?: unknown }).panels);
      return panels.flatMap((p) =>
        asArray(get(p, 'targets')).map((t) => ({ panel: String(get(p, 'title')), expr: String(get(t, 'expr')) })),
      );
    }),
  );
  for (const q of queries)
    for (const m of unknownMetrics(q.expr))
      problems.push({
        file: 'monitoring',
        where: `dashboard panel "${q.panel}"`,
        message: `query names ${m}, which no service registers`,
      });

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-promtool-'));
  try {
    writeFileSync(
      path.join(tmp, 'rules.yaml'),
      stringify({ groups: rules.flatMap((r) => asArray(get(r.doc, 'spec', 'groups'))) }),
    );
    const checked = promtool(['check', 'rules', 'rules.yaml'], tmp);
    if (checked === null)
      return 'skipped: promtool not found: the PrometheusRule and the dashboard queries were checked for metric names and runbooks only';
    if (!checked.ok)
      problems.push({ file: 'monitoring', where: 'PrometheusRule', message: `promtool check rules: ${checked.out}` });
    const tests = path.join(dir, 'alerts.test.yaml');
    if (!existsSync(tests))
      problems.push({
        file: 'monitoring',
        where: 'alerts.test.yaml',
        message: 'the alerts have no promtool unit tests',
      });
    else {
      copyFileSync(tests, path.join(tmp, 'alerts.test.yaml'));
      const tested = promtool(['test', 'rules', 'alerts.test.yaml'], tmp);
      if (tested && !tested.ok)
        problems.push({ file: 'monitoring', where: 'alerts.test.yaml', message: `promtool test rules: ${tested.out}` });
    }
    // The Compose stack's Prometheus config, loading these rules as rules.yaml beside it.
    copyFileSync(COMPOSE_PROMETHEUS, path.join(tmp, 'prometheus.yml'));
    const config = promtool(['check', 'config', 'prometheus.yml'], tmp);
    if (config && !config.ok)
      problems.push({
        file: 'monitoring',
        where: 'scripts/deploy/prometheus.yml',
        message: `promtool check config: ${config.out}`,
      });
    // Each dashboard query as a recording rule: promtool parses it as PromQL.
    writeFileSync(
      path.join(tmp, 'dashboard.yaml'),
      stringify({
        groups: [
          { name: 'dashboard', rules: queries.map((q, i) => ({ record: `dashboard_query_${i}`, expr: q.expr })) },
        ],
      }),
    );
    const parsed = promtool(['check', 'rules', 'dashboard.yaml'], tmp);
    if (parsed && !parsed.ok)
      problems.push({
        file: 'monitoring',
        where: 'grafana-dashboard.json',
        message: `a query is not valid PromQL: ${parsed.out}`,
      });
    return `promtool: ${alerts.length} rule(s) checked and unit-tested, ${queries.length} dashboard quer(ies) parsed`;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
