import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCycles } from '../../../test/support/import-cycles';

// The bot worker's files import one another in one direction (issue 35 §4 untangled worker.ts ↔
// jobs/role-sync-handlers.ts, and jobs/ owning the repairs' RepairDeps): this keeps a cycle from coming back.
describe('bot worker imports', () => {
  it('have no cycle', () => {
    expect(importCycles(__dirname)).toEqual([]);
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
