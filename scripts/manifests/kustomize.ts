// What `kubectl apply -k` would send: the kustomization rendered by kubectl's built-in kustomize, each
// rendered object against the Kubernetes API schemas again (kustomize's transformers rewrite images,
// namespaces and labels), and the migration gate on the rendered images: every Deployment's
// wait-for-migrations init container must run the very image (tag included) that the migrate Job runs,
// or a pod could wait for another release's migrations. Without kubectl, says so and checks nothing.
import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { asArray, at, get, type Manifest, type Problem } from './types';

export const MIGRATE_IMAGE = 'rolelink/migrate';

/**
 * Problems of the migration gate. On the files as written, only that each Deployment has the gate: their
 * tags are placeholders that the kustomization's `images:` sets. On the rendered objects (`exact`), that
 * the gate's image is the Job's, tag included.
 */
export function migrationGateProblems(all: Manifest[], { exact }: { exact: boolean }): Problem[] {
  const problems: Problem[] = [];
  const jobImages = all
    .filter((m) => m.doc.kind === 'Job')
    .flatMap((j) => asArray(get(j.doc, 'spec', 'template', 'spec', 'containers')).map((c) => String(get(c, 'image'))))
    .filter((image) => image.split(':')[0]?.endsWith(MIGRATE_IMAGE));
  for (const d of all.filter((m) => m.doc.kind === 'Deployment')) {
    const fail = (message: string) => problems.push({ file: d.file, where: at(d), message });
    // PgBouncer (components/pgbouncer) runs none of the service's code: no schema to wait for.
    if (get(d.doc, 'spec', 'template', 'metadata', 'labels', 'app.kubernetes.io/component') === 'pgbouncer') continue;
    const gate = asArray(get(d.doc, 'spec', 'template', 'spec', 'initContainers')).find(
      (c) =>
        String(get(c, 'image')).split(':')[0]?.endsWith(MIGRATE_IMAGE) &&
        asArray(get(c, 'command'))
          .concat(asArray(get(c, 'args')))
          .includes('wait'),
    );
    if (!gate) {
      fail(
        'an init container running the migrate image\'s "wait" is required (new pods must not start on an old schema)',
      );
      continue;
    }
    const image = String(get(gate, 'image'));
    if (exact && !jobImages.includes(image))
      fail(`init container image ${image} is not the migrate Job's (${jobImages.join(', ') || 'no migrate Job'})`);
  }
  return problems;
}

export function renderKustomization(dir: string, problems: Problem[]): { rendered: Manifest[] } | { skipped: string } {
  let text: string;
  try {
    text = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') return { skipped: 'kubectl not found: the kustomize render was not checked' };
    problems.push({
      file: 'kustomization.yaml',
      where: `kubectl kustomize ${dir}`,
      message: (e.stderr ?? e.message).trim(),
    });
    return { rendered: [] };
  }
  const rendered = parseAllDocuments(text).map((d, index) => ({
    file: '(kubectl kustomize)',
    index,
    doc: d.toJS() as Record<string, unknown>,
  }));
  return { rendered };
}
