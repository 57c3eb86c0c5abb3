// `npm run build`, last step: dist/package/ becomes the package exactly as npm packs and publishes it
// (`npm pack ./dist/package`, `npm publish ./dist/package`). The package.json beside this folder is the
// workspace's: its main/types name src/ so the services and tests need no build, and npm, unlike pnpm,
// never applies publishConfig's main/types/exports. Here they are applied, and what only the workspace
// needs (scripts, devDependencies) is dropped, so plain npm (no pnpm on PATH) packs the right thing.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'package');
const source = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

const { scripts: _scripts, devDependencies: _dev, publishConfig = {}, ...kept } = source;
const { main, types, exports, ...registry } = publishConfig;
const manifest = {
  ...kept,
  main,
  types,
  exports,
  ...(Object.keys(registry).length ? { publishConfig: registry } : {}),
};
const workspaceDeps = Object.entries(manifest.dependencies ?? {}).filter(([, spec]) =>
  String(spec).startsWith('workspace:'),
);
if (workspaceDeps.length)
  throw new Error(`dependencies that exist only in this workspace: ${workspaceDeps.map(([n]) => n).join(', ')}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const entry of readdirSync(dist).filter((e) => e !== 'package'))
  cpSync(path.join(dist, entry), path.join(out, 'dist', entry), { recursive: true });
for (const file of manifest.files.filter((f) => f !== 'dist')) cpSync(path.join(root, file), path.join(out, file));
writeFileSync(path.join(out, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`staged ${path.relative(process.cwd(), out) || '.'}: npm pack ${path.relative(process.cwd(), out)}`);
