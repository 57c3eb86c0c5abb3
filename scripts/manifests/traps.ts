// The Kubernetes traps an SRE fell into on a first deployment, each checked so it cannot come
// back:
//   - images resolving to Docker Hub: every `images:` entry of the kustomization sets newName and newTag;
//   - a namespace hard-coded across objects: the kustomization's `namespace:` names it once, and an overlay
//     that sets another leaves no object (the Namespace included) in the old one (rendered with kubectl);
//   - the docs creating the Secret before its namespace exists: the namespace step comes first;
//   - DNS egress that blocks NodeLocal DNSCache: the policy giving every pod port 53 admits 169.254.20.10;
//   - a migrate Job deadline that kills the slowest measured migration on a large database.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { asArray, at, get, type Manifest, type Problem } from './types';

const ROOT = path.resolve(__dirname, '..', '..');
/** The registry the manifests name until a deployer's `images:` names theirs: it resolves nowhere. */
export const PLACEHOLDER_REGISTRY = 'registry.example.invalid';
/** NodeLocal DNSCache's default address (its `__PILLAR__LOCAL__DNS__`). */
export const NODE_LOCAL_DNS = '169.254.20.10';
/**
 * The slowest migration measured, the wide-ID rewrite: 375 s per 30M rows (docs/benchmarks.md). The Job's
 * deadline must let it rewrite at least 300M rows at that rate, with a factor 2 for a busier server.
 */
export const MIGRATE_MIN_DEADLINE_S = Math.ceil((375 / 30e6) * 300e6 * 2);

export function trapChecks(all: Manifest[], problems: Problem[]): void {
  const kustomization = all.find((m) => m.doc.kind === 'Kustomization');
  if (kustomization) {
    const fail = (message: string) => problems.push({ file: kustomization.file, where: 'Kustomization', message });
    for (const image of asArray(kustomization.doc.images)) {
      const name = String(get(image, 'name'));
      if (get(image, 'newName') === undefined || get(image, 'newTag') === undefined)
        fail(
          `images: ${name} needs newName (your registry's repository) and newTag: without newName it resolves to Docker Hub`,
        );
    }
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const m of all)
      for (const c of [
        ...asArray(get(m.doc, 'spec', 'template', 'spec', 'containers')),
        ...asArray(get(m.doc, 'spec', 'template', 'spec', 'initContainers')),
      ]) {
        const image = String(get(c, 'image'));
        if (!image.startsWith(`${PLACEHOLDER_REGISTRY}/rolelink/`) || !image.endsWith(`:${version}`))
          problems.push({
            file: m.file,
            where: at(m),
            message: `image ${image} must be ${PLACEHOLDER_REGISTRY}/rolelink/<name>:${version} (the product version; a deployer's images: sets the registry)`,
          });
      }
    if (typeof kustomization.doc.namespace !== 'string')
      fail("namespace: must be set once here, so an overlay renames every object's namespace with one setting");
  }

  for (const p of all.filter((m) => m.doc.kind === 'NetworkPolicy')) {
    const dns = asArray(get(p.doc, 'spec', 'egress')).filter((rule) =>
      asArray(get(rule, 'ports')).some((port) => Number(get(port, 'port')) === 53),
    );
    if (!dns.length) continue;
    const cidrs = dns.flatMap((rule) => asArray(get(rule, 'to')).map((peer) => get(peer, 'ipBlock', 'cidr')));
    if (!cidrs.some((c) => c === `${NODE_LOCAL_DNS}/32`))
      problems.push({
        file: p.file,
        where: at(p),
        message: `DNS egress must admit NodeLocal DNSCache (ipBlock ${NODE_LOCAL_DNS}/32), or pods of clusters that run it cannot resolve names`,
      });
    // In iptables mode pods keep asking the DNS Service's ClusterIP, answered by the node's cache from the
    // host network: neither the kube-dns pods nor the link-local address match that.
    if (!cidrs.some((c) => typeof c === 'string' && c !== `${NODE_LOCAL_DNS}/32` && c.endsWith('/32')))
      problems.push({
        file: p.file,
        where: at(p),
        message:
          "DNS egress must admit the DNS Service's ClusterIP (an ipBlock /32, environment.yaml dnsServiceIP), or NodeLocal DNSCache in iptables mode blocks every lookup",
      });
  }

  for (const job of all.filter((m) => m.doc.kind === 'Job')) {
    const deadline = get(job.doc, 'spec', 'activeDeadlineSeconds');
    if (deadline !== undefined && Number(deadline) < MIGRATE_MIN_DEADLINE_S) {
      problems.push({
        file: job.file,
        where: at(job),
        message: `activeDeadlineSeconds ${Number(deadline)} would kill the wide-ID migration on a large database (375 s per 30M rows measured): at least ${MIGRATE_MIN_DEADLINE_S}, or none`,
      });
    }
  }

  const docs = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const section = /^### Kubernetes\n([\s\S]*?)^#### /m.exec(docs)?.[1] ?? '';
  const namespaceStep = section.indexOf('kubectl create namespace "$NS"');
  const secretStep = section.search(/create (the )?Secret|create secret/);
  for (const m of docs.matchAll(/kubectl (?:[^`\n]* )?(?:-n|--namespace)[ =]rolelink\b/g))
    problems.push({
      file: 'docs/operations.md',
      where: m[0],
      message: 'a kubectl command names the namespace rolelink: use -n "$NS" (NS set once, as the docs say)',
    });
  if (namespaceStep < 0 || secretStep < 0 || namespaceStep > secretStep) {
    problems.push({
      file: 'docs/operations.md',
      where: '### Kubernetes',
      message: 'the steps must create the namespace (kubectl create namespace "$NS") before the Secret',
    });
  }
}

/**
 * The combinations of k8s/components a deployer may list (each renders and passes every check). Components
 * that replace the same object do not combine: gateway-api deletes the Ingress that ingress-nginx and
 * cert-manager annotate.
 */
export const COMBINATIONS: string[][] = [
  [],
  ['ingress-nginx'],
  ['cert-manager'],
  ['ingress-nginx', 'cert-manager'],
  ['gateway-api'],
  ['doctor'],
  ['keda'],
  ['ingress-nginx', 'cert-manager', 'doctor', 'keda'],
  ['gateway-api', 'doctor', 'keda'],
  ['pgbouncer'],
  ['ingress-nginx', 'cert-manager', 'doctor', 'keda', 'pgbouncer'],
];

/** What the test overlay's environment component (scripts/manifests/namespace-overlay/environment) sets. */
const OVERLAY_ENVIRONMENT = {
  peers: ['gateway-system', 'observability', 'databases'],
  dns: '10.43.0.10/32',
  hosts: ['api.rolelink.acme.io', 'dashboard.rolelink.acme.io'],
};
const PLACEHOLDER_HOST = /(^|\.)example\.(com|org|net)$|\.invalid$/;

/**
 * Renders the kustomization under a deployer's overlay (another namespace, registry and environment) with
 * these components, over a copy of the base; null without kubectl.
 */
export function renderOverlay(
  dir: string,
  components: string[],
  problems: Problem[],
): { docs: Record<string, unknown>[]; text: string; namespace: string } | null {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-ns-'));
  try {
    cpSync(dir, path.join(tmp, 'base'), { recursive: true });
    const overlay = path.join(tmp, 'overlay');
    cpSync(path.join(ROOT, 'scripts', 'manifests', 'namespace-overlay'), overlay, { recursive: true });
    const file = path.join(overlay, 'kustomization.yaml');
    const kustomization = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      kustomization.replace(
        '  - ../base/components/environment\n',
        ['environment', ...components].map((c) => `  - ../base/components/${c}\n`).join(''),
      ),
    );
    const text = execFileSync('kubectl', ['kustomize', overlay], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
    const docs = parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
    return { docs, text, namespace: kustomization.match(/^namespace: (\S+)$/m)?.[1] ?? '' };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') return null;
    problems.push({
      file: 'kustomization.yaml',
      where: `overlay with components [${components.join(', ')}]`,
      message: (e.stderr ?? e.message).trim(),
    });
    return { docs: [], text: '', namespace: '' };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A deployer's render: nothing may stay on the base's namespace, registry, environment or placeholders. */
export function overlayProblems(
  render: { docs: Record<string, unknown>[]; text: string; namespace: string },
  label: string,
  problems: Problem[],
): void {
  const { docs, text, namespace: renamed } = render;
  const fail = (d: Record<string, unknown>, message: string) =>
    problems.push({ file: label, where: `${String(d.kind)}/${String(get(d, 'metadata', 'name'))}`, message });
  const peers = new Set<string>();
  const cidrs = new Set<string>();
  for (const d of docs) {
    const ns = d.kind === 'Namespace' ? get(d, 'metadata', 'name') : get(d, 'metadata', 'namespace');
    if (ns !== undefined && ns !== renamed)
      fail(d, `stays in namespace ${JSON.stringify(ns)} when an overlay sets namespace: ${renamed}`);
    if (d.kind === 'NetworkPolicy') {
      for (const rule of [...asArray(get(d, 'spec', 'ingress')), ...asArray(get(d, 'spec', 'egress'))]) {
        for (const peer of [...asArray(get(rule, 'from')), ...asArray(get(rule, 'to'))]) {
          const peerNs = get(peer, 'namespaceSelector', 'matchLabels', 'kubernetes.io/metadata.name');
          if (typeof peerNs === 'string') peers.add(peerNs);
          const cidr = get(peer, 'ipBlock', 'cidr');
          if (typeof cidr === 'string') cidrs.add(cidr);
        }
      }
    }
    for (const c of [
      ...asArray(get(d, 'spec', 'template', 'spec', 'containers')),
      ...asArray(get(d, 'spec', 'template', 'spec', 'initContainers')),
      ...asArray(get(d, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers')),
    ]) {
      const image = String(get(c, 'image'));
      if (/\.invalid\/|(^|\.)example\.(com|org|net)\//.test(image) || !image.includes('/'))
        fail(d, `image ${image} is a placeholder: a deployer's images: must name their registry`);
    }
    const hosts = [
      ...asArray(get(d, 'spec', 'rules')).map((r) => get(r, 'host')),
      ...asArray(get(d, 'spec', 'tls')).flatMap((t) => asArray(get(t, 'hosts'))),
      ...asArray(get(d, 'spec', 'hostnames')),
    ].filter((h): h is string => typeof h === 'string');
    for (const h of hosts)
      if (PLACEHOLDER_HOST.test(h) || !OVERLAY_ENVIRONMENT.hosts.includes(h))
        fail(d, `host ${h} is not the environment's (apiHost, dashboardHost): set it from environment.yaml`);
  }
  for (const ns of peers)
    if (ns !== 'kube-system' && !OVERLAY_ENVIRONMENT.peers.includes(ns))
      problems.push({
        file: label,
        where: 'NetworkPolicy',
        message: `selects namespace ${ns}, which the overlay's environment does not name: set it from environment.yaml`,
      });
  if (!cidrs.has(OVERLAY_ENVIRONMENT.dns))
    problems.push({
      file: label,
      where: 'NetworkPolicy/allow-dns',
      message: `the overlay's dnsServiceIP (${OVERLAY_ENVIRONMENT.dns}) does not reach the DNS egress`,
    });
  if (/namespace="rolelink"|\.rolelink\.svc\b/.test(text))
    problems.push({
      file: label,
      where: 'render',
      message: 'the render still names the namespace rolelink in a value',
    });
  if (/REPLACE_ME|example\.com/.test(text))
    problems.push({
      file: label,
      where: 'render',
      message: `a placeholder (${/REPLACE_ME|example\.com/.exec(text)?.[0]}) survives an overlay that sets every environment value`,
    });
}
