import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { buildInfo } from './build-info';
import { createMetrics } from './metrics';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const versionOf = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;

/** Every workspace package's package.json, from pnpm-workspace.yaml's globs (`dir/*` or a plain dir). */
function workspacePackages(): string[] {
  const globs = [...readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^\s+- (\S+)$/gm)].map(
    (m) => m[1]!,
  );
  return globs.flatMap((g) => {
    const dirs = g.endsWith('/*')
      ? readdirSync(path.join(ROOT, g.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => path.join(g.slice(0, -2), d.name))
      : [g];
    return dirs.map((d) => path.join(ROOT, d, 'package.json')).filter((f) => existsSync(f));
  });
}

describe('the release version', () => {
  it('is one version for the whole product: every workspace package.json carries the root one', () => {
    const root = versionOf(path.join(ROOT, 'package.json'));
    expect(root).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    const packages = workspacePackages();
    expect(packages.length).toBeGreaterThan(15);
    const differing = packages
      .map((f) => ({ file: path.relative(ROOT, f), version: versionOf(f) }))
      .filter((p) => p.version !== root);
    expect(differing).toEqual([]);
  });

  it("is the image's default VERSION (the Dockerfile's OCI version label)", () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(/^ARG VERSION=(\S+)$/m.exec(dockerfile)?.[1]).toBe(versionOf(path.join(ROOT, 'package.json')));
  });

  it('is the version CHANGELOG.md describes last', () => {
    const root = versionOf(path.join(ROOT, 'package.json'))!;
    const first = /^## \[?(\d+\.\d+\.\d+[^\]\s]*)/m.exec(readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'));
    expect(first?.[1]).toBe(root);
  });
});

describe('rolelink_build_info', () => {
  it('is 1 with the version, the revision from the image (unknown outside one) and the Node.js version', async () => {
    const root = versionOf(path.join(ROOT, 'package.json'));
    expect(buildInfo({ ROLELINK_REVISION: 'abc1234' })).toEqual({
      version: root,
      revision: 'abc1234',
      node: process.versions.node,
    });
    expect(buildInfo({}).revision).toBe('unknown');
    const text = await createMetrics('api', { defaultMetrics: false }).registry.metrics();
    expect(text).toContain(
      `rolelink_build_info{version="${root}",revision="${buildInfo().revision}",node="${process.versions.node}",service="api"} 1`,
    );
  });
});
