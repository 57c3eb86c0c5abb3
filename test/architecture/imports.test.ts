import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cyclesOf, importCycles, workspaceGraph } from '../support/import-cycles';

const repoRoot = path.resolve(__dirname, '../..');
const graph = workspaceGraph(repoRoot);

/** Test support: a file in a `test/` or `testing/` folder, or a test file. */
const isTestSupport = (f: string) => /(^|\/)(testing|test)\//.test(f) || /\.test\.tsx?$/.test(f);
const isEmulator = (f: string) => f.startsWith('services/platform-emulator/');

/**
 * The imports, as `from -> to`, by which production code (every file the graph reads: the packages', services'
 * and SDK's `src/`, tests left out) reaches test support or, from outside the emulator, the platform emulator.
 */
function wrongImports(imports: Map<string, string[]>, root: string): string[] {
  const relTo = (f: string) => path.relative(root, f).split(path.sep).join('/');
  const wrong: string[] = [];
  for (const [file, targets] of imports) {
    const from = relTo(file);
    for (const target of targets.map(relTo))
      if (isTestSupport(target) || (isEmulator(target) && !isEmulator(from))) wrong.push(`${from} -> ${target}`);
  }
  return wrong;
}

// The workspace's files (every package, service and the SDK, `@rolelink/…` imports followed) import one
// another in one direction, and production code never reaches into test support or the platform emulator.
// Harnesses and other test support live in each package's `test/` (`test/support/`), never in `src/`:
// a file left in a `src/testing/` folder is read as production code like any other.
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

  it('never lead from production code to test support or the platform emulator', () => {
    expect(wrongImports(graph, repoRoot)).toEqual([]);
  });

  it('are checked so that production code reaching test support or the emulator is found', () => {
    const at = (f: string) => path.join(repoRoot, f);
    const worker = at('services/bot-worker/src/worker.ts');
    const emulatorApp = at('services/platform-emulator/src/app.ts');
    const leftInSrc = at('services/bot-worker/src/testing/in-process-bot.ts');
    const fake = new Map([
      [worker, [at('services/bot-worker/test/support/harness.ts'), at('packages/admin/src/testing/deps.ts')]],
      [leftInSrc, [at('services/platform-emulator/src/index.ts'), at('services/bot-worker/src/worker.ts')]],
      [emulatorApp, [at('services/platform-emulator/src/seed.ts'), at('test/support/db.ts')]],
    ]);
    expect(wrongImports(fake, repoRoot)).toEqual([
      'services/bot-worker/src/worker.ts -> services/bot-worker/test/support/harness.ts',
      'services/bot-worker/src/worker.ts -> packages/admin/src/testing/deps.ts',
      'services/bot-worker/src/testing/in-process-bot.ts -> services/platform-emulator/src/index.ts',
      'services/platform-emulator/src/app.ts -> test/support/db.ts',
    ]);
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
