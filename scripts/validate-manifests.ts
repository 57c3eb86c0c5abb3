// Validates the deployment manifests without a cluster or a Docker engine (CI runs it through jest):
//   - every Kubernetes object in k8s/ against the Kubernetes API schemas (npm: kubernetes-models),
//     plus selector/reference/probe/resource/grace-period/ingress/migration-gate conventions, and the
//     same objects as `kubectl kustomize k8s/` renders them (skipped, and said, without kubectl);
//   - k8s/monitoring as rendered: the PrometheusRule and the Grafana dashboard's queries through promtool
//     (rules checked, alerts.test.yaml run; skipped, and said, without promtool), runbooks, metric names;
//   - docker-compose.yml against the Compose Specification schema (shipped by npm: dclint) with ajv,
//     plus health-check and dependency-order conventions.
//   tsx scripts/validate-manifests.ts [--k8s <dir>] [--compose <file>]
import path from 'node:path';
import { validateCompose } from './manifests/compose';
import { validateKubernetes } from './manifests/kubernetes';
import type { Problem } from './manifests/types';

const ROOT = path.resolve(__dirname, '..');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? path.resolve(process.argv[i + 1] as string) : fallback;
}

async function main(): Promise<void> {
  const k8sDir = arg('--k8s', path.join(ROOT, 'k8s'));
  const composeFile = arg('--compose', path.join(ROOT, 'docker-compose.yml'));
  const k8s = await validateKubernetes(k8sDir);
  const compose = validateCompose(composeFile);
  const problems: Problem[] = [...k8s.problems, ...compose.problems];
  for (const p of problems) console.error(`✗ ${p.file} ${p.where}: ${p.message}`);
  if (problems.length) {
    console.error(`${problems.length} problem(s) in the deployment manifests`);
    // exitCode, not exit(): a pipe's writes are asynchronous, and exit() would cut a long report short.
    process.exitCode = 1;
    return;
  }
  console.log(
    `manifests valid: ${k8s.checked} Kubernetes object(s) in ${path.relative(process.cwd(), k8sDir) || '.'}, ${path.relative(process.cwd(), composeFile)}`,
  );
  for (const note of k8s.notes) console.log(note);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(2);
});
