// The network rules of docs/operations.md ("Network policies"), checked on the manifests: a default deny
// both ways, and egress beyond PostgreSQL, Redis and DNS only for the processes that must reach out
// (and, inside the cluster, to the plugin broker's port for its callers).
import { asArray, asRecord, at, get, type Manifest, type Problem } from './types';

/** The ports every workload may reach inside the cluster: DNS, PostgreSQL, Redis. */
const BASE_PORTS = new Set([53, 5432, 6379]);
/** The one in-cluster path beyond them: the plugin broker's internal routes, for the processes that wait on plugin calls. */
const BROKER_CALLERS = new Set(['dashboard', 'cli']);
const BROKER_PORT = 3002;
/** Components allowed egress to addresses outside the cluster (ipBlock): plugins, the platform. */
const INTERNET_EGRESS = new Set(['plugin-broker', 'bot-worker', 'dashboard', 'doctor']);

type Labels = Record<string, unknown>;

/** A Kubernetes LabelSelector (matchLabels and matchExpressions In/NotIn/Exists/DoesNotExist) against labels. */
export function selects(selector: unknown, labels: Labels): boolean {
  const matchLabels = asRecord(get(selector, 'matchLabels'));
  if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v)) return false;
  return asArray(get(selector, 'matchExpressions')).every((e) => {
    const key = String(get(e, 'key'));
    const values = asArray(get(e, 'values')).map(String);
    const has = key in labels;
    switch (get(e, 'operator')) {
      case 'In':
        return has && values.includes(String(labels[key]));
      case 'NotIn':
        return !has || !values.includes(String(labels[key]));
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}

const types = (p: Manifest) => asArray(get(p.doc, 'spec', 'policyTypes')).map(String);

export function networkPolicyChecks(all: Manifest[], problems: Problem[]): void {
  const policies = all.filter((m) => m.doc.kind === 'NetworkPolicy');
  const workloads = all.filter((m) => m.doc.kind === 'Deployment' || m.doc.kind === 'Job');
  const denyAll = policies.find(
    (p) =>
      Object.keys(asRecord(get(p.doc, 'spec', 'podSelector'))).length === 0 &&
      types(p).includes('Ingress') &&
      types(p).includes('Egress') &&
      asArray(get(p.doc, 'spec', 'ingress')).length === 0 &&
      asArray(get(p.doc, 'spec', 'egress')).length === 0,
  );
  if (!denyAll)
    problems.push({
      file: '(all)',
      where: 'NetworkPolicy',
      message: 'a default-deny NetworkPolicy (podSelector {}, Ingress and Egress, no rules) is required',
    });

  for (const w of workloads) {
    const labels = asRecord(get(w.doc, 'spec', 'template', 'metadata', 'labels'));
    const label = labels['app.kubernetes.io/component'];
    const component = typeof label === 'string' ? label : '';
    const fail = (message: string) => problems.push({ file: w.file, where: at(w), message });
    for (const p of policies.filter(
      (pol) => types(pol).includes('Egress') && selects(get(pol.doc, 'spec', 'podSelector'), labels),
    )) {
      for (const rule of asArray(get(p.doc, 'spec', 'egress'))) {
        const to = asArray(get(rule, 'to'));
        const ports = asArray(get(rule, 'ports'));
        const where = `NetworkPolicy/${String(get(p.doc, 'metadata', 'name'))}`;
        if (to.length === 0) fail(`${where} lets it reach any destination`);
        // One address on port 53 only (NodeLocal DNSCache's link-local address, the DNS Service's ClusterIP)
        // is name resolution, not egress outside the cluster.
        const nodeDns = (peer: unknown) =>
          /\/32$/.test(String(get(peer, 'ipBlock', 'cidr'))) &&
          ports.length > 0 &&
          ports.every((port) => Number(get(port, 'port')) === 53);
        if (to.some((peer) => get(peer, 'ipBlock') !== undefined && !nodeDns(peer))) {
          if (!INTERNET_EGRESS.has(component))
            fail(`${where} gives it egress outside the cluster; only ${[...INTERNET_EGRESS].join(', ')} may reach out`);
          continue;
        }
        const inside = ports.map((port) => Number(get(port, 'port')));
        const toBroker = to.every(
          (peer) =>
            get(peer, 'namespaceSelector') === undefined &&
            selects(get(peer, 'podSelector'), {
              'app.kubernetes.io/name': 'rolelink',
              'app.kubernetes.io/component': 'plugin-broker',
            }),
        );
        if (toBroker && inside.length > 0 && inside.every((n) => n === BROKER_PORT)) {
          if (!BROKER_CALLERS.has(component))
            fail(`${where} lets it call the plugin broker; only ${[...BROKER_CALLERS].join(', ')} may`);
          continue;
        }
        if (inside.length === 0 || inside.some((n) => !BASE_PORTS.has(n)))
          fail(
            `${where} opens ports beyond DNS, PostgreSQL and Redis (${inside.join(', ') || 'all'}) inside the cluster`,
          );
      }
    }
  }
}
