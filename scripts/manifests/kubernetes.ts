// Kubernetes manifests: every object against the Kubernetes API schemas (kubernetes-models: validators
// generated from the Kubernetes OpenAPI definitions), against the same package's TypeScript interfaces
// for unknown fields, then the conventions this service relies on.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { asArray, asRecord, at, get, type Manifest, type Problem } from './types';
import { connectionBudget } from './connections';
import { ingressChecks, routeChecks } from './ingress';
import { migrationGateProblems, renderKustomization } from './kustomize';
import { COMBINATIONS, overlayProblems, renderOverlay, trapChecks } from './traps';
import { monitoringChecks, runbookOverlayProblems } from './monitoring';
import { networkPolicyChecks } from './network-policies';
import { unknownFieldProblems } from './unknown-fields';

/** The services stop within 25 s of SIGTERM (runtime onShutdown); probes and grace must allow for it. */
const SHUTDOWN_DEADLINE_S = 25;
const NOT_API_OBJECTS = new Set(['Kustomization']);
/** API groups kubernetes-models knows; a component's custom resources (HTTPRoute, ScaledObject) are checked by their own rules. */
const CORE_GROUP = /^(v1|(apps|batch|policy|autoscaling|networking\.k8s\.io)\/)/;

export function loadManifests(dir: string, problems: Problem[]): Manifest[] {
  const out: Manifest[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    const file = path.join(dir, name);
    parseAllDocuments(readFileSync(file, 'utf8')).forEach((d, index) => {
      if (d.errors.length) {
        problems.push({ file: name, where: `document ${index}`, message: d.errors.map((e) => e.message).join('; ') });
        return;
      }
      const doc = d.toJS({ maxAliasCount: 100 }) as unknown;
      if (doc && typeof doc === 'object') out.push({ file: name, index, doc: doc as Record<string, unknown> });
    });
  }
  return out;
}

type ModelClass = new (data: unknown) => { validate(): void };

async function modelFor(apiVersion: string, kind: string): Promise<ModelClass | string> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(`kubernetes-models/${apiVersion}`)) as Record<string, unknown>;
  } catch {
    return `unknown apiVersion ${apiVersion}`;
  }
  const model = mod[kind];
  return typeof model === 'function' ? (model as ModelClass) : `unknown kind ${kind} in ${apiVersion}`;
}

async function schemaCheck(m: Manifest, problems: Problem[]): Promise<void> {
  const { apiVersion, kind } = m.doc;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    problems.push({ file: m.file, where: at(m), message: 'apiVersion and kind are required' });
    return;
  }
  const Model = await modelFor(apiVersion, kind);
  if (typeof Model === 'string') {
    problems.push({ file: m.file, where: at(m), message: Model });
    return;
  }
  try {
    new Model(m.doc).validate();
  } catch (err) {
    problems.push({ file: m.file, where: at(m), message: (err as Error).message });
  }
}

const labelsMatch = (selector: Record<string, unknown>, labels: Record<string, unknown>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

function checkWorkloadPod(m: Manifest, podSpec: unknown, problems: Problem[], { service }: { service: boolean }): void {
  const fail = (message: string) => problems.push({ file: m.file, where: at(m), message });
  if (get(podSpec, 'securityContext', 'runAsNonRoot') !== true) fail('pod must set securityContext.runAsNonRoot: true');
  for (const c of asArray(get(podSpec, 'containers'))) {
    const name = String(get(c, 'name'));
    for (const kindOf of ['requests', 'limits'] as const) {
      for (const r of ['cpu', 'memory'])
        if (get(c, 'resources', kindOf, r) === undefined)
          fail(`container ${name}: resources.${kindOf}.${r} is required`);
    }
    if (get(c, 'securityContext', 'allowPrivilegeEscalation') !== false)
      fail(`container ${name}: securityContext.allowPrivilegeEscalation must be false`);
    if (!service) continue;
    // PgBouncer (components/pgbouncer) speaks no HTTP: ready and live while it accepts connections.
    if (get(podSpec, 'containers', 0, 'name') === 'pgbouncer') {
      for (const probe of ['readinessProbe', 'livenessProbe'])
        if (get(c, probe, 'tcpSocket', 'port') === undefined)
          fail(`container ${name}: ${probe} must be a tcpSocket check`);
      if (get(c, 'lifecycle', 'preStop') === undefined)
        fail(`container ${name}: a preStop hook is required (endpoints drop the pod before SIGTERM)`);
      continue;
    }
    if (get(c, 'readinessProbe', 'httpGet', 'path') !== '/readyz')
      fail(`container ${name}: readinessProbe must GET /readyz`);
    if (get(c, 'livenessProbe', 'httpGet', 'path') !== '/healthz')
      fail(`container ${name}: livenessProbe must GET /healthz`);
    if (get(c, 'lifecycle', 'preStop') === undefined)
      fail(`container ${name}: a preStop hook is required (endpoints drop the pod before SIGTERM)`);
  }
  if (service) {
    const grace = Number(get(podSpec, 'terminationGracePeriodSeconds') ?? 30);
    if (grace <= SHUTDOWN_DEADLINE_S)
      fail(
        `terminationGracePeriodSeconds (${grace}) must exceed the services' ${SHUTDOWN_DEADLINE_S} s shutdown deadline`,
      );
  }
}

/** Cross-object rules: selectors find pods, references name existing objects, every Deployment is protected. */
function conventionChecks(all: Manifest[], dir: string | null, problems: Problem[]): void {
  const byKind = (k: string) => all.filter((m) => m.doc.kind === k);
  const name = (m: Manifest) => String(get(m.doc, 'metadata', 'name'));
  const deployments = byKind('Deployment');
  const podLabels = (d: Manifest) => asRecord(get(d.doc, 'spec', 'template', 'metadata', 'labels'));
  const fail = (m: Manifest, message: string) => problems.push({ file: m.file, where: at(m), message });

  for (const d of deployments) {
    if (!labelsMatch(asRecord(get(d.doc, 'spec', 'selector', 'matchLabels')), podLabels(d)))
      fail(d, 'spec.selector.matchLabels must match the pod template labels');
    checkWorkloadPod(d, get(d.doc, 'spec', 'template', 'spec'), problems, { service: true });
    const protectedBy = byKind('PodDisruptionBudget').some((p) =>
      labelsMatch(asRecord(get(p.doc, 'spec', 'selector', 'matchLabels')), podLabels(d)),
    );
    if (!protectedBy) fail(d, 'no PodDisruptionBudget selects this Deployment');
  }
  for (const j of byKind('Job'))
    checkWorkloadPod(j, get(j.doc, 'spec', 'template', 'spec'), problems, { service: false });
  for (const s of byKind('Service')) {
    const selector = asRecord(get(s.doc, 'spec', 'selector'));
    const target = deployments.find((d) => labelsMatch(selector, podLabels(d)));
    if (!target) {
      fail(s, 'spec.selector matches no Deployment');
      continue;
    }
    const portNames = asArray(get(target.doc, 'spec', 'template', 'spec', 'containers')).flatMap((c) =>
      asArray(get(c, 'ports')).map((p) => get(p, 'name')),
    );
    for (const p of asArray(get(s.doc, 'spec', 'ports'))) {
      const tp = get(p, 'targetPort');
      if (typeof tp === 'string' && !portNames.includes(tp))
        fail(s, `targetPort ${tp} is not a named port of ${name(target)}`);
    }
  }
  for (const p of byKind('PodDisruptionBudget')) {
    if (!deployments.some((d) => labelsMatch(asRecord(get(p.doc, 'spec', 'selector', 'matchLabels')), podLabels(d))))
      fail(p, 'selector matches no Deployment');
  }
  for (const h of byKind('HorizontalPodAutoscaler')) {
    const ref = String(get(h.doc, 'spec', 'scaleTargetRef', 'name'));
    if (!deployments.some((d) => name(d) === ref)) fail(h, `scaleTargetRef names no Deployment (${ref})`);
  }
  for (const so of byKind('ScaledObject')) {
    const ref = String(get(so.doc, 'spec', 'scaleTargetRef', 'name'));
    if (!deployments.some((d) => name(d) === ref)) fail(so, `scaleTargetRef names no Deployment (${ref})`);
    if (byKind('HorizontalPodAutoscaler').some((h) => get(h.doc, 'spec', 'scaleTargetRef', 'name') === ref))
      fail(so, `${ref} also has a HorizontalPodAutoscaler: KEDA's own would fight it`);
  }
  for (const d of deployments) {
    const keys = asArray(get(d.doc, 'spec', 'template', 'spec', 'topologySpreadConstraints')).map((c) =>
      get(c, 'topologyKey'),
    );
    if (!keys.includes('topology.kubernetes.io/zone'))
      fail(d, 'topologySpreadConstraints must spread across topology.kubernetes.io/zone (a zone outage)');
  }
  const scaled = [...byKind('HorizontalPodAutoscaler'), ...byKind('ScaledObject')].map((h) =>
    String(get(h.doc, 'spec', 'scaleTargetRef', 'name')),
  );
  for (const want of ['rolelink-api', 'rolelink-bot-worker']) {
    if (!scaled.includes(want))
      problems.push({
        file: '(all)',
        where: want,
        message: 'a HorizontalPodAutoscaler (or KEDA ScaledObject) is required',
      });
  }
  const services = byKind('Service').map(name);
  for (const i of byKind('Ingress')) {
    for (const rule of asArray(get(i.doc, 'spec', 'rules'))) {
      for (const p of asArray(get(rule, 'http', 'paths'))) {
        const svc = String(get(p, 'backend', 'service', 'name'));
        if (!services.includes(svc)) fail(i, `backend service ${svc} does not exist`);
      }
    }
  }
  for (const s of byKind('Secret')) {
    for (const [key, value] of Object.entries({
      ...asRecord(get(s.doc, 'stringData')),
      ...asRecord(get(s.doc, 'data')),
    })) {
      if (!String(value).includes('REPLACE_ME'))
        fail(s, `${key} looks like a real value: a committed Secret may hold placeholders (REPLACE_ME) only`);
    }
  }
  if (dir === null) return;
  for (const k of all.filter((m) => m.doc.kind === 'Kustomization')) {
    const listed = asArray(k.doc.resources).map(String);
    for (const r of listed) if (!existsSync(path.join(dir, r))) fail(k, `resource ${r} does not exist`);
    const files = [
      ...new Set(
        all.filter((m) => !NOT_API_OBJECTS.has(String(m.doc.kind)) && m.doc.kind !== 'Secret').map((m) => m.file),
      ),
    ];
    for (const f of files) if (!listed.includes(f)) fail(k, `${f} is not listed in resources`);
  }
}

export async function validateKubernetes(
  dir: string,
): Promise<{ checked: number; notes: string[]; problems: Problem[] }> {
  const problems: Problem[] = [];
  const all = loadManifests(dir, problems);
  const objects = all.filter((m) => !NOT_API_OBJECTS.has(String(m.doc.kind)));
  for (const m of objects) await schemaCheck(m, problems);
  problems.push(...unknownFieldProblems(objects));
  conventionChecks(all, dir, problems);
  networkPolicyChecks(all, problems);
  ingressChecks(all, problems);
  trapChecks(all, problems);
  problems.push(...migrationGateProblems(all, { exact: false }));
  // The same objects as kubectl apply -k sends them (images, namespaces set by the kustomization).
  const render = renderKustomization(dir, problems);
  if ('skipped' in render) return { checked: objects.length, notes: [`skipped: ${render.skipped}`], problems };
  for (const m of render.rendered) await schemaCheck(m, problems);
  problems.push(...migrationGateProblems(render.rendered, { exact: true }));
  routeChecks(render.rendered, problems);
  const notes = [`kubectl kustomize: ${render.rendered.length} rendered object(s) valid`];
  notes.push(connectionBudget(dir, render.rendered, problems));
  // Every supported combination of components under a deployer's overlay (another namespace, registry and
  // environment): each rendered object against the schemas and every rule again.
  for (const components of COMBINATIONS) {
    const label = `overlay [${components.join(', ') || 'no components'}]`;
    const render = renderOverlay(dir, components, problems);
    if (!render) break;
    const manifests = render.docs.map((doc, index) => ({ file: label, index, doc }));
    for (const m of manifests) if (CORE_GROUP.test(String(m.doc.apiVersion))) await schemaCheck(m, problems);
    overlayProblems(render, label, problems);
    conventionChecks(manifests, null, problems);
    connectionBudget(dir, manifests, problems);
    routeChecks(manifests, problems);
    ingressChecks(manifests, problems);
    networkPolicyChecks(manifests, problems);
    problems.push(...migrationGateProblems(manifests, { exact: true }));
  }
  notes.push(`overlays: ${COMBINATIONS.length} combination(s) of components rendered in another namespace and checked`);
  // k8s/monitoring: its own kustomization (the Prometheus Operator's kinds are checked by monitoringChecks).
  const monitoringDir = path.join(dir, 'monitoring');
  const monitoring = renderKustomization(monitoringDir, problems);
  if (!('skipped' in monitoring)) {
    for (const m of monitoring.rendered)
      if (!String(m.doc.apiVersion).startsWith('monitoring.coreos.com/')) await schemaCheck(m, problems);
    notes.push(monitoringChecks(monitoringDir, monitoring.rendered, problems));
    const runbooks = runbookOverlayProblems(monitoringDir, problems);
    if (runbooks) notes.push(runbooks);
  }
  return { checked: objects.length, notes, problems };
}
