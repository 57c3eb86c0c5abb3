import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { freePorts } from '../../scripts/free-port';
import { until } from '../support/until';
import {
  deployLocal,
  describeDocker,
  docker,
  projectContainers,
  ROOT,
  runScript,
  type Container,
} from './deploy-local';

// The shipped alerts, proven on a live Prometheus. Debian's Prometheus (scripts/deploy/prometheus.sh:
// the shipped scrape config and rules as they are, so 30 s scrapes and evaluations and each rule's own `for:`)
// watches the Compose stack of `pnpm deploy:local --keep` while a bot worker, Redis and PostgreSQL fail in
// turn, each restored (and its alerts resolved) before the next. Each time the right alert goes pending and
// then firing, and the wrong ones stay silent throughout: an outage reported as another sends the operator
// to the wrong runbook (the SRE saw RoleLinkTargetDown fire for a Redis outage). The times are printed for
// docs/operations.md ("Alerts proven live").

type Rule = { alert?: string; for?: string };
const SHIPPED = parse(readFileSync(path.join(ROOT, 'k8s', 'monitoring', 'prometheus-rule.yaml'), 'utf8')) as {
  spec: { groups: { rules: Rule[] }[] };
};
const SHIPPED_RULES = SHIPPED.spec.groups
  .flatMap((g) => g.rules)
  .filter((r): r is Rule & { alert: string } => r.alert !== undefined);
/** A rule's `for:` in ms ("5m", "90s"; none: 0). */
const forMs = (alert: string): number => {
  const f = SHIPPED_RULES.find((r) => r.alert === alert)?.for ?? '0s';
  const m = /^(\d+)(s|m|h)$/.exec(f);
  if (!m) throw new Error(`unexpected for: ${f} of ${alert}`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
};
/** The services scripts/deploy/prometheus.yml scrapes; each reports rolelink_dependency_up{dependency="db"|"redis"}. */
const SCRAPED = ['api', 'dashboard', 'plugin-broker', 'bot-worker'];
/** The alerts an outage of one part must never be mistaken for. */
const WATCHED = new Set(['RoleLinkTargetDown', 'RoleLinkDependencyDown', 'RoleLinkSeriesAbsent']);
// Caps on waits for Prometheus's own progress (scrapes every 30 s, evaluations every 30 s), not figures: an
// alert fires after its `for:` plus up to a scrape and two evaluations; the margin is for a host at load 25.
const MARGIN_MS = 10 * 60_000;
const POLL_MS = 1_000;

type Alert = { labels: Record<string, string>; state: 'pending' | 'firing' | 'inactive'; activeAt: string };
type Target = { labels: Record<string, string>; health: 'up' | 'down' | 'unknown'; lastError: string };
type RuleGroup = {
  name: string;
  lastEvaluation: string;
  rules: { name: string; type: string; health: string; lastError?: string }[];
};

/** An alert as one line: its name and the labels that tell its instances apart. */
const key = (a: Alert): string =>
  `${a.labels.alertname}{${Object.entries(a.labels)
    .filter(([k]) => !['alertname', 'severity', 'blinds'].includes(k))
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

type Outage = {
  what: string;
  /** The right alerts, and how many distinct ones must fire (one per reporting service or target). */
  right: (a: Alert) => boolean;
  count: number;
  /** The alerts that must stay silent (neither pending nor firing) from the outage until its alerts resolve. */
  wrong: (a: Alert) => boolean;
  capMs: number;
  cause: () => Promise<void>;
  restore: () => Promise<void>;
};
type Measured = {
  what: string;
  fired: { alert: string; pendingAfterS: number; firingAfterS: number }[];
  resolvedAfterS: number;
  wrong: string[];
  others: string[];
  load: string;
};

const seconds = (ms: number) => Math.round(ms / 1000);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

describeDocker('the shipped alerts on a live Prometheus, against the Compose stack', () => {
  const ports = { API_PORT: '', DASHBOARD_PORT: '', EMULATOR_PORT: '' };
  let prometheusPort = '';
  let keptCode: number | null = null;
  let prometheusCode: number | null = null;
  const measured: Measured[] = [];

  const prom = async <T>(route: string): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${prometheusPort}${route}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${route}: ${body.error ?? res.status}`);
    return body.data;
  };
  const activeAlerts = async () =>
    (await prom<{ alerts: Alert[] }>('/api/v1/alerts')).alerts.filter(
      (a) => a.state === 'pending' || a.state === 'firing',
    );
  const targets = async () => (await prom<{ activeTargets: Target[] }>('/api/v1/targets?state=active')).activeTargets;
  const running = async (service: string): Promise<Container[]> =>
    (await projectContainers()).filter((c) => c.service === service && c.status === 'running');
  const healthy = (id: string, what: string) =>
    until(
      () => docker('inspect', '--format', '{{.State.Health.Status}}', id),
      (s) => s === 'healthy',
      `${what} healthy again`,
      MARGIN_MS,
      POLL_MS,
    );

  /** Causes the outage, watches every alert until the right ones fire, restores, and watches until they resolve. */
  async function prove(o: Outage): Promise<Measured> {
    const before = await activeAlerts();
    expect({ what: o.what, activeBefore: before.filter((a) => o.wrong(a) || o.right(a)).map(key) }).toEqual({
      what: o.what,
      activeBefore: [],
    });
    const known = new Set(before.map(key));
    const pending = new Map<string, number>();
    const firing = new Map<string, number>();
    const wrong = new Set<string>();
    const others = new Set<string>();
    const started = Date.now();
    const loadAtStart = load();
    /** One look at the alerts: the right ones' first pending and first firing, and anything else. */
    const look = async (): Promise<Alert[]> => {
      const active = await activeAlerts();
      const at = Date.now() - started;
      for (const a of active) {
        const k = key(a);
        if (o.right(a)) {
          if (a.state === 'pending' && !pending.has(k)) pending.set(k, at);
          if (a.state === 'firing' && !firing.has(k)) firing.set(k, at);
        } else if (o.wrong(a)) wrong.add(`${k} ${a.state}`);
        else if (!known.has(k)) others.add(`${k} ${a.state}`);
      }
      return active;
    };
    await o.cause();
    try {
      await until(look, () => firing.size >= o.count, `${o.what}: ${o.count} right alert(s) firing`, o.capMs, POLL_MS);
    } finally {
      await o.restore();
    }
    const restored = Date.now();
    await until(
      look,
      (active) => !active.some(o.right),
      `${o.what}: its alerts resolved after the restore`,
      MARGIN_MS,
      POLL_MS,
    );
    const m: Measured = {
      what: o.what,
      fired: [...firing].map(([alert, f]) => ({
        alert,
        pendingAfterS: seconds(pending.get(alert) ?? Number.NaN),
        firingAfterS: seconds(f),
      })),
      resolvedAfterS: seconds(Date.now() - restored),
      wrong: [...wrong],
      others: [...others],
      load: `${loadAtStart} → ${load()}`,
    };
    console.log(`live alerts: ${JSON.stringify(m, null, 2)}`);
    measured.push(m);
    // Pending, then firing: every right alert was seen pending first (its `for:` is minutes, the look is every second).
    for (const [alert, f] of firing)
      expect({ alert, pendingBeforeFiring: (pending.get(alert) ?? Infinity) < f }).toEqual({
        alert,
        pendingBeforeFiring: true,
      });
    expect({ what: o.what, wrong: m.wrong }).toEqual({ what: o.what, wrong: [] });
    return m;
  }

  beforeAll(async () => {
    const keys = Object.keys(ports) as (keyof typeof ports)[];
    const picked = await freePorts(keys.length + 1);
    keys.forEach((key, i) => (ports[key] = String(picked[i])));
    prometheusPort = String(picked[keys.length]);
    keptCode = await deployLocal(['--keep'], ports);
    if (keptCode === 0)
      prometheusCode = await runScript('scripts/deploy/prometheus.sh', ['up'], { PROMETHEUS_PORT: prometheusPort });
  });

  afterAll(async () => {
    if (measured.length > 0) {
      console.log(
        `live alerts, times from the outage (s):\n${measured.map((m) => `${m.what} (load ${m.load}): ${m.fired.map((f) => `${f.alert} pending ${f.pendingAfterS}, firing ${f.firingAfterS}`).join('; ')}; resolved ${m.resolvedAfterS} after the restore`).join('\n')}`,
      );
    }
    // Prometheus first: it is attached to the project's network, which the down removes.
    if (prometheusCode !== null) await runScript('scripts/deploy/prometheus.sh', ['down']);
    if (keptCode !== null) await deployLocal(['--down'], ports);
  });

  test('Prometheus scrapes every replica and loads every shipped rule; a healthy stack raises none of the outage alerts', async () => {
    expect({ deployLocal: keptCode, prometheus: prometheusCode }).toEqual({ deployLocal: 0, prometheus: 0 });
    let expected = 0;
    for (const service of SCRAPED) expected += (await running(service)).length;
    expect(expected).toBe(6); // api, dashboard, plugin-broker and three bot workers
    await until(
      targets,
      (t) => t.length === expected && t.every((x) => x.health === 'up'),
      `${expected} targets up`,
      MARGIN_MS,
      POLL_MS,
    );
    const groups = await until(
      async () => (await prom<{ groups: RuleGroup[] }>('/api/v1/rules?type=alert')).groups,
      (g) => g.length > 0 && g.every((x) => !x.lastEvaluation.startsWith('0001-')),
      'every rule group evaluated once',
      MARGIN_MS,
      POLL_MS,
    );
    const loaded = groups.flatMap((g) => g.rules);
    expect(loaded.map((r) => r.name).sort()).toEqual(SHIPPED_RULES.map((r) => r.alert).sort());
    expect(loaded.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual(
      [],
    );
    // The absent() rules are pending until the first scrapes are in; then a healthy stack leaves them silent.
    const quiet = await until(
      activeAlerts,
      (a) => !a.some((x) => WATCHED.has(x.labels.alertname ?? '')),
      'no outage alert active on the healthy stack',
      MARGIN_MS,
      POLL_MS,
    );
    if (quiet.length > 0)
      console.log(`live alerts: active on the healthy stack (not outage alerts): ${quiet.map(key).join(', ')}`);
  });

  test('a bot worker that stops answering (paused): RoleLinkTargetDown for its target, pending then firing; no dependency or absent alert', async () => {
    const [worker] = await running('bot-worker');
    expect(worker?.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const instance = `${worker!.ip}:3003`;
    const m = await prove({
      what: 'bot worker paused',
      right: (a) => a.labels.alertname === 'RoleLinkTargetDown' && a.labels.instance === instance,
      count: 1,
      wrong: (a) =>
        WATCHED.has(a.labels.alertname ?? '') &&
        !(a.labels.alertname === 'RoleLinkTargetDown' && a.labels.instance === instance),
      capMs: forMs('RoleLinkTargetDown') + MARGIN_MS,
      // docker pause freezes its processes (the cgroup freezer): the container stays on the network and in
      // Docker's DNS, so Prometheus keeps the target and its scrape times out, as for a hung process.
      cause: async () => void (await docker('pause', worker!.id)),
      restore: async () => void (await docker('unpause', worker!.id)),
    });
    expect(m.fired.map((f) => f.alert)).toEqual([
      `RoleLinkTargetDown{instance="${instance}",job="rolelink",system="rolelink"}`,
    ]);
  });

  for (const [dependency, service, what] of [
    ['redis', 'redis', 'Redis'],
    ['db', 'postgres', 'PostgreSQL'],
  ] as const) {
    test(`${what} stopped: RoleLinkDependencyDown{dependency="${dependency}"} for every service, pending then firing; no target down, no other dependency, no absent alert`, async () => {
      const [container] = await running(service);
      expect(container).toBeDefined();
      const m = await prove({
        what: `${what} stopped`,
        right: (a) => a.labels.alertname === 'RoleLinkDependencyDown' && a.labels.dependency === dependency,
        count: SCRAPED.length,
        wrong: (a) =>
          WATCHED.has(a.labels.alertname ?? '') &&
          !(a.labels.alertname === 'RoleLinkDependencyDown' && a.labels.dependency === dependency),
        capMs: forMs('RoleLinkDependencyDown') + MARGIN_MS,
        cause: async () => void (await docker('stop', '--time', '60', container!.id)),
        restore: async () => {
          await docker('start', container!.id);
          await healthy(container!.id, what);
        },
      });
      expect(m.fired.map((f) => f.alert).sort()).toEqual(
        SCRAPED.map((s) => `RoleLinkDependencyDown{dependency="${dependency}",service="${s}"}`).sort(),
      );
    });
  }
});
