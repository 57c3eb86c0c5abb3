import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cyclesOf, importCycles, workspaceGraph } from '../../../test/support/import-cycles';

const repoRoot = path.resolve(__dirname, '../../..');
const rel = (f: string) => path.relative(repoRoot, f).split(path.sep).join('/');
const graph = workspaceGraph(repoRoot);

/** Test support: a `testing/` or `test/` folder, or a test file. */
const isTestSupport = (f: string) => /(^|\/)(testing|test)\//.test(f) || /\.test\.tsx?$/.test(f);
const isEmulator = (f: string) => f.startsWith('services/platform-emulator/');

// The workspace's files (every package, service and the SDK, `@rolelink/…` imports followed) import one
// another in one direction, and production code never reaches into test support or the platform emulator.
// This file sits in the bot worker because its test started here; it reads the whole tree.
describe('workspace imports', () => {
  it('have no cycle', () => {
    expect(cyclesOf(graph, repoRoot)).toEqual([]);
  });

  it('follow @rolelink/… imports across packages, subpaths included', () => {
    const consumer = path.join(repoRoot, 'packages/queue/src/consumer.ts');
    const retry = path.join(repoRoot, 'packages/queue/src/retry-backoff.ts');
    expect(graph.get(consumer)).toContain(path.join(repoRoot, 'packages/contracts/src/index.ts'));
    expect(graph.get(retry)).toContain(path.join(repoRoot, 'packages/wire-types/src/backoff.ts'));
  });

  // Today's exception: each deployable's src/testing (harnesses, among them the bot worker's in-process
  // worker on the emulator) is test support still kept in src/; its importers are tests, so it is left out
  // as an importer until the harnesses move to the deployables' test/ folders.
  it('never lead from production code to test support or the platform emulator', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = rel(file);
      if (isTestSupport(from)) continue;
      for (const target of targets.map(rel))
        if (isTestSupport(target) || (isEmulator(target) && !isEmulator(from))) wrong.push(`${from} -> ${target}`);
    }
    expect(wrong).toEqual([]);
  });

  it('are read so that a cycle is found, type-only imports, re-exports and index files included', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
    try {
      mkdirSync(path.join(dir, 'jobs'));
      writeFileSync(
        path.join(dir, 'worker.ts'),
        "import { handlers } from './jobs';\nexport type Options = { n: number };\n",
      );
      writeFileSync(path.join(dir, 'jobs', 'index.ts'), "export { handlers } from './handlers';\n");
      writeFileSync(
        path.join(dir, 'jobs', 'handlers.ts'),
        "import type { Options } from '../worker';\nexport const handlers = (o: Options) => o.n;\n",
      );
      writeFileSync(
        path.join(dir, 'jobs', 'handlers.test.ts'),
        "import { handlers } from './handlers';\nimport '../worker';\n",
      );
      writeFileSync(path.join(dir, 'self.ts'), "import './self';\n");
      writeFileSync(path.join(dir, 'leaf.ts'), "import { handlers } from './jobs/handlers';\nimport 'pg';\n");
      expect(importCycles(dir)).toEqual([['jobs/handlers.ts', 'jobs/index.ts', 'worker.ts'], ['self.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
