import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import cycles among the source files under `root` (tests left out: nothing imports them), each as
 * its files relative to `root`, sorted; [] when there are none. Every relative import counts, `import type`
 * included: a type-only import does not run, but it still ties the two files together, and a cycle of
 * types is the layering knot a cycle of values is. Imports are read by TypeScript's own scanner
 * (`ts.preProcessFile`), without a type check, so the whole tree takes a few seconds.
 */
export function importCycles(root: string): string[][] {
  return cyclesOf(importGraph(sourceFiles(root), new Map()), root);
}

/**
 * The workspace's import graph: every source file (tests left out) of every package, service and SDK
 * under `repoRoot` (their `src/`, and a service's web `src/`), with relative imports and `@rolelink/…`
 * imports (through each package's `exports`, else `main`) resolved to files. An import of a file outside
 * those (a `test/` folder's support file, say) is kept as an edge to a leaf, so a rule on what production
 * code imports can see it; a leaf has no imports of its own, so it closes no cycle.
 */
export function workspaceGraph(repoRoot: string): Map<string, string[]> {
  const packages = new Map<string, { dir: string; manifest: Manifest }>();
  const files: string[] = [];
  for (const group of ['packages', 'services', 'sdk']) {
    for (const name of readdirSync(path.join(repoRoot, group))) {
      const dir = path.join(repoRoot, group, name);
      const manifestFile = path.join(dir, 'package.json');
      if (!existsSync(manifestFile)) continue;
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
      packages.set(manifest.name, { dir, manifest });
      for (const src of [path.join(dir, 'src'), path.join(dir, 'web', 'src')])
        if (existsSync(src)) files.push(...sourceFiles(src));
    }
  }
  const bare = (spec: string): string | null => {
    const name = [...packages.keys()].find((n) => spec === n || spec.startsWith(`${n}/`));
    if (!name) return null;
    const { dir, manifest } = packages.get(name)!;
    const sub = spec === name ? '.' : `.${spec.slice(name.length)}`;
    const target = manifest.exports?.[sub] ?? (sub === '.' ? (manifest.main ?? 'src/index.ts') : sub);
    return resolve(path.resolve(dir, target));
  };
  return importGraph(files, new Map(), bare);
}

/** The cycles of a graph, each as its files relative to `root`, sorted. */
export function cyclesOf(graph: Map<string, string[]>, root: string): string[][] {
  return stronglyConnected(graph)
    .filter((group) => group.length > 1 || (graph.get(group[0]!) ?? []).includes(group[0]!))
    .map((group) => group.map((f) => path.relative(root, f)).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

type Manifest = { name: string; main?: string; exports?: Record<string, string> };

/** The .ts/.tsx files under `root`, tests, declarations, generated code and dependencies left out. */
function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter(
      (f) =>
        /\.tsx?$/.test(f) &&
        !/\.test\.tsx?$/.test(f) &&
        !f.endsWith('.d.ts') &&
        !f.split(path.sep).some((part) => part === 'node_modules' || part === 'generated'),
    )
    .map((f) => path.join(root, f));
}

/** Each file's imports that resolve to a .ts/.tsx file (packages from node_modules are left out). */
function importGraph(
  files: string[],
  graph: Map<string, string[]>,
  bare: (spec: string) => string | null = () => null,
): Map<string, string[]> {
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) =>
        i.fileName.startsWith('.') ? resolve(path.resolve(path.dirname(file), i.fileName)) : bare(i.fileName),
      )
      .filter((t): t is string => t !== null);
    graph.set(file, targets);
  }
  return graph;
}

function resolve(base: string): string | null {
  return (
    [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find(
      (f) => /\.tsx?$/.test(f) && existsSync(f),
    ) ?? null
  );
}

/** Tarjan's strongly connected components: each cycle's files come out as one group. */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    groups.push(group);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups;
}
