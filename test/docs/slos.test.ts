import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// docs/slos.md says which shipped alert guards which objective and where each severity is routed: every alert
// of the PrometheusRule is there with its own severity, the routing table's pager list is exactly the
// critical alerts, and the Alertmanager example routes every severity the rules use.
const root = path.resolve(__dirname, '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'slos.md'), 'utf8');
type Rule = { alert?: string; labels?: { severity?: string } };
const rule = parse(readFileSync(path.join(root, 'k8s', 'monitoring', 'prometheus-rule.yaml'), 'utf8')) as {
  spec: { groups: { rules: Rule[] }[] };
};
const severities = new Map<string, string>();
for (const r of rule.spec.groups.flatMap((g) => g.rules))
  if (r.alert) severities.set(r.alert, r.labels?.severity ?? '(none)');

/** The text of the section whose heading is exactly `heading`, up to the next heading of its level or above. */
function section(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/slos.md has no section "${heading}"`);
  const rest = doc.slice(start + heading.length + 2);
  const end = rest.search(/^##? /m);
  return end < 0 ? rest : rest.slice(0, end);
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe('docs/slos.md', () => {
  it('names every shipped alert under an objective, with its severity', () => {
    const named = new Map<string, string>();
    for (const m of section('## Objectives').matchAll(/`(RoleLink\w+)` \((critical|warning)/g))
      named.set(m[1] as string, m[2] as string);
    expect(sorted(named.keys())).toEqual(sorted(severities.keys()));
    for (const [alert, severity] of named) expect([alert, severity]).toEqual([alert, severities.get(alert)]);
  });

  it('pages exactly the critical alerts', () => {
    const row = section('## Routing')
      .split('\n')
      .find((l) => l.startsWith('| `critical`'));
    const paged = [...(row?.split('|')[2] ?? '').matchAll(/`(RoleLink\w+)`/g)].map((m) => m[1] as string);
    const critical = [...severities].filter(([, s]) => s === 'critical').map(([a]) => a);
    expect(sorted(paged)).toEqual(sorted(critical));
  });

  it('routes every severity the rules use in its Alertmanager example', () => {
    const block = /```yaml\n(route:[\s\S]*?)```/.exec(section('## Routing'))?.[1];
    const config = parse(block ?? '') as { route: { routes: { matchers: string[]; receiver: string }[] } };
    const routed = config.route.routes.flatMap((r) =>
      r.matchers.map((m) => /^severity="(\w+)"$/.exec(m)?.[1]).filter((s): s is string => s !== undefined),
    );
    expect(sorted(routed)).toEqual(sorted(severities.values()));
  });
});
