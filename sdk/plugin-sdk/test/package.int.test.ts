import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The package as a plugin author gets it, on a machine with Node.js and npm only: `npm run build` (which
 * stages dist/package/ with the publish manifest), `npm pack ./dist/package`, the tarball installed with
 * npm into an empty project outside the workspace, then used from an ES module, from CommonJS and from
 * TypeScript. Every command runs with pnpm off PATH and without the npm_* variables pnpm sets, so a step
 * that needs pnpm fails here. Everything else in this package's tests reads src/ through the
 * workspace, so only this file sees what the publish would ship: the export map, the emitted .d.ts, the
 * dependencies, the licence.
 */

const execFileAsync = promisify(execFile);

/** PATH without any folder that holds pnpm, and the environment without what pnpm exports to its children. */
function withoutPnpm(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([name]) => !/^(npm_|pnpm_)/i.test(name)));
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !existsSync(path.join(dir, 'pnpm')));
  return { ...clean, PATH: dirs.join(path.delimiter) };
}
const PLAIN = withoutPnpm(process.env);

/** Runs a command; a failure's message carries its output (tsc's errors, npm's), which jest shows. */
async function run(
  file: string,
  args: string[],
  options: { cwd: string },
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(file, args, { ...options, env: PLAIN });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${options.cwd}:\n${stdout}${stderr}`, { cause: err });
  }
}
const SDK = path.resolve(__dirname, '..');
const ROOT = path.resolve(SDK, '..', '..');
const FIXTURES = path.join(__dirname, 'packed-consumer');

let dir: string;
let project: string;
let installed: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rolelink-sdk-pack-'));
  // The test cannot pass with pnpm in reach: `command -v` must find none.
  await expect(run('sh', ['-c', 'command -v pnpm'], { cwd: SDK })).rejects.toThrow();
  await run('npm', ['run', 'build'], { cwd: SDK });
  await run('npm', ['pack', '--pack-destination', dir, path.join(SDK, 'dist', 'package')], { cwd: SDK });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball to ${dir}`);
  project = path.join(dir, 'consumer');
  await cp(FIXTURES, project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  // jsonwebtoken and its few dependencies come from npm's cache when it has them.
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(dir, tarball)],
    { cwd: project },
  );
  installed = path.join(project, 'node_modules', '@rolelink', 'plugin-sdk');
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string, sub = ''): Promise<string[]> {
  const entries = await readdir(path.join(root, sub), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? filesUnder(root, path.join(sub, e.name)) : Promise.resolve([path.join(sub, e.name)]),
    ),
  );
  return nested.flat();
}

const node = (script: string) => run(process.execPath, [script], { cwd: project });

test('the tarball holds the compiled dist/, the README, the licence and package.json, and no sources or tests', async () => {
  const files = await filesUnder(installed);
  expect(files.filter((f) => !f.startsWith(`dist${path.sep}`)).sort()).toEqual([
    'LICENSE',
    'README.md',
    'package.json',
  ]);
  expect(await readFile(path.join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  expect(files).toContain(path.join('dist', 'index.js'));
  expect(files).toContain(path.join('dist', 'index.d.ts'));
  // The wire types, copied from the workspace's @rolelink/wire-types by scripts/build.mjs.
  expect(files).toContain(path.join('dist', 'wire-types', 'index.d.ts'));
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
});

test('package.json points into dist/ (types first) and depends on jsonwebtoken and standardwebhooks only, no workspace package', async () => {
  const text = await readFile(path.join(installed, 'package.json'), 'utf8');
  const manifest = JSON.parse(text) as Record<string, unknown>;
  expect(manifest).toMatchObject({
    // The product's one version (the root package.json's; test: packages/runtime/src/build-info.test.ts).
    version: (
      JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
    ).version,
    license: 'MIT',
    main: './dist/index.js',
    types: './dist/index.d.ts',
    engines: { node: expect.any(String) },
  });
  expect(manifest.private).toBeUndefined();
  expect(manifest.scripts).toBeUndefined();
  expect(manifest.devDependencies).toBeUndefined();
  expect(Object.keys((manifest.exports as Record<string, Record<string, string>>)['.']!)).toEqual(['types', 'default']);
  // jsonwebtoken for iframe tokens, standardwebhooks for signed events (docs/api.md "Events to plugins").
  expect(Object.keys(manifest.dependencies as object)).toEqual(['jsonwebtoken', 'standardwebhooks']);
  expect(text).not.toContain('workspace:');
  // Neither the JavaScript nor the declarations may load the service's packages.
  for (const file of (await filesUnder(installed, 'dist')).map((f) => path.join(installed, f))) {
    expect(await readFile(file, 'utf8')).not.toMatch(/["']@rolelink\//);
  }
});

test('npm pack of the workspace folder itself refuses and names the command that packs the package', async () => {
  await expect(run('npm', ['pack', '--dry-run'], { cwd: SDK })).rejects.toThrow(
    /npm run build && npm pack \.\/dist\/package/,
  );
});

test('an ES module imports it by name and it works', async () => {
  expect((await node('esm.mjs')).stdout.trim()).toBe('esm ok');
});

test('CommonJS requires it and it works', async () => {
  expect((await node('cjs.cjs')).stdout.trim()).toBe('cjs ok');
});

test("its types check in ESM and CommonJS TypeScript with no @types at all (TypeScript 6+'s default types: [])", async () => {
  // TypeScript 6 and 7 load no @types package unless the tsconfig lists it, and a plugin's tsconfig
  // should not have to list "node" for the SDK: no Node or DOM global may leak into its .d.ts.
  // skipLibCheck off checks the installed .d.ts too; lib es2022 has neither AbortSignal nor fetch.
  const tsconfig = {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    },
    files: ['typed.mts', 'typed.cts'],
  };
  await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
});
