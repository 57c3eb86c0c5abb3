// `prisma generate` needs no engine, but the CLI insists on finding a schema-engine binary at start-up
// and would try to download one (impossible offline). Any executable satisfies that check.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
const r = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
