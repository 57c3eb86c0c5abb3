import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import cycles among the source files under `root` (tests left out: nothing imports them), each as
 * its files relative to `root`, sorted; [] when there are none. Every relative import counts, `import type`
 * included: a type-only import does not run, but it still ties the two files together, and a cycle of
 * types is the layering knot a cycle of values is (issue 35 §4: RepairDeps in jobs/, imported by the
 * repairs jobs/ runs). Imports are read by TypeScript's own scanner (`ts.preProcessFile`), without a
 * type check, so a whole deployable takes well under a second.
 */
export function importCycles(root: string): string[][] {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(root, f));
  const sources = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => resolve(path.resolve(path.dirname(file), i.fileName)))
      // Files outside `root` (test support, another package) cannot close a cycle inside it.
      .filter((t): t is string => t !== null && sources.has(t));
    graph.set(file, targets);
  }
  return stronglyConnected(graph)
    .filter((group) => group.length > 1 || graph.get(group[0]!)!.includes(group[0]!))
    .map((group) => group.map((f) => path.relative(root, f)).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

function resolve(base: string): string | null {
  return (
    [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((f) =>
      existsSync(f),
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
