// `pnpm build`: compiles every deployable into one JavaScript file with esbuild, written to the dist/ of
// the package that owns it, so production runs `node dist/main.js` with no TypeScript loader:
//   services/<name>/dist/main.js      api, plugin-broker, bot-worker, dashboard
//   services/cli/dist/main.js         the `rolelink` bin (services/cli package.json)
//   services/migrate/dist/migrate.js  scripts/migrate.ts (finds prisma/ at or above its directory)
//
// Why a bundler and not tsc: the @rolelink/* packages are consumed as TypeScript source (package.json
// main: src/index.ts) by tsx, jest (@swc/jest) and the type checker. Bundling them into each deployable
// leaves that development flow untouched (no dist/ to keep fresh, no export conditions), whereas
// compiled packages would need a second resolution path for every package. npm dependencies stay
// external (loaded from node_modules), so the bundle holds only this repository's code.
//
// Not built here: sdk/plugin-sdk, a library published to npm rather than a deployable. Its own
// `build` (tsc → CommonJS + .d.ts in its dist/) runs when it is packed or published; every deployable
// that uses it bundles its source, so neither the images nor `pnpm bench startup` would use that dist/.
//
// Each external import must be a production dependency of the package owning the bundle, because the
// images install exactly those (`pnpm deploy --prod`): the build fails naming any that is not.
import { builtinModules } from 'node:module';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');

type Target = { pkg: string; entry: string; out: string; bin?: boolean };

/** Every deployable; `pkg` is the package whose dist/ and production dependencies it uses. */
const TARGETS: readonly Target[] = [
  { pkg: 'services/api', entry: 'services/api/src/main.ts', out: 'main.js' },
  { pkg: 'services/plugin-broker', entry: 'services/plugin-broker/src/main.ts', out: 'main.js' },
  { pkg: 'services/bot-worker', entry: 'services/bot-worker/src/main.ts', out: 'main.js' },
  { pkg: 'services/dashboard', entry: 'services/dashboard/src/main.ts', out: 'main.js' },
  { pkg: 'services/cli', entry: 'services/cli/src/main.ts', out: 'main.js', bin: true },
  { pkg: 'services/migrate', entry: 'scripts/migrate.ts', out: 'migrate.js' },
];

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

/**
 * npm packages bundled like our own code. @prisma/client ships the runtime and query compiler of every
 * database Prisma supports (72 MB installed); the generated client loads only the PostgreSQL ones, so
 * bundling it puts a few hundred KB in each bundle and one 4.4 MB file beside it (LAZY_FILES) instead of
 * the whole package in each image.
 */
const BUNDLED_NPM = new Set(['@prisma/client']);

/**
 * Prisma's query compiler is a 4.4 MB base64 string in a module the client imports on its first query.
 * Inside the bundle V8 would hold it from the start (idle RSS every process pays; docs/benchmarks.md), so it is copied
 * beside the bundle as its own file and stays a lazy import.
 */
const LAZY_FILES = /^@prisma\/client\/runtime\/query_compiler_[\w.-]+\.wasm-base64\.js$/;

/**
 * Workspace packages (@rolelink/*) and BUNDLED_NPM are bundled; LAZY_FILES are copied to dist/; every
 * other bare import stays external.
 */
const externalNpm = (outdir: string): Plugin => ({
  name: 'external-npm',
  setup(b) {
    b.onResolve({ filter: LAZY_FILES }, (args) => {
      const source = require.resolve(args.path, { paths: [args.resolveDir] });
      mkdirSync(outdir, { recursive: true });
      copyFileSync(source, path.join(outdir, path.basename(source)));
      return { path: `./${path.basename(source)}`, external: true };
    });
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (builtins.has(args.path) || args.path.startsWith('@rolelink/') || BUNDLED_NPM.has(packageName(args.path)))
        return undefined;
      return { path: args.path, external: true };
    });
  },
});

function productionDependencies(pkgDir: string): Set<string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, pkgDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return new Set(Object.keys(pkg.dependencies ?? {}));
}

/** External npm packages the bundle loads at run time (the output's imports: what survived bundling). */
function externalPackages(metafile: Metafile): Set<string> {
  const found = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imp of output.imports) {
      // Relative paths are LAZY_FILES, copied beside the bundle.
      if (imp.external && !imp.path.startsWith('.') && !builtins.has(imp.path)) found.add(packageName(imp.path));
    }
  }
  return found;
}

/**
 * One entry compiled into one CommonJS file the way every deployable is: this repository's code bundled,
 * npm packages external (resolved from the file's directory upwards at run time). Also used by `pnpm bench
 * api` for its bare baseline server, so that both sides of its ratio run compiled.
 */
export async function bundle(entry: string, outfile: string, banner?: string): Promise<Metafile> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Stack traces point at the TypeScript sources (the images run with --enable-source-maps).
    sourcemap: true,
    // Line mapping only: the map need not carry the sources (the wasm compiler alone is 4 MB of text).
    sourcesContent: false,
    // No keepNames: it wraps every named function and closure in `__name()`, an Object.defineProperty run
    // each time a closure is created, i.e. several times per request on the API's hot path (2.2% of its busy
    // time under POST load, docs/benchmarks.md "The POST figure, most of the way back"). Nothing reads
    // a function's name: our errors set `this.name` themselves, and where esbuild renames a clash (`serve2`)
    // the source map beside the bundle gives the place.
    keepNames: false,
    banner: banner ? { js: banner } : undefined,
    plugins: [externalNpm(path.dirname(outfile))],
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

async function buildTarget(t: Target): Promise<string[]> {
  const outfile = path.join(ROOT, t.pkg, 'dist', t.out);
  const metafile = await bundle(path.join(ROOT, t.entry), outfile, t.bin ? '#!/usr/bin/env node' : undefined);
  // A bin runs as `rolelink …` once installed: executable, with the shebang banner above.
  if (t.bin) chmodSync(outfile, 0o755);
  const declared = productionDependencies(t.pkg);
  const loaded = externalPackages(metafile);
  const missing = [...loaded].filter((name) => !declared.has(name)).sort();
  const problems = missing.map(
    (name) => `${t.pkg}/dist/${t.out} loads ${name}, which is not in ${t.pkg}/package.json dependencies`,
  );
  // A deployable's production dependencies are what its image installs: one its bundle never loads is
  // dead weight there (types and bundled workspace packages belong in devDependencies).
  {
    for (const name of [...declared].filter((n) => !loaded.has(n)).sort()) {
      problems.push(
        `${t.pkg}/package.json lists ${name} in dependencies, but ${t.pkg}/dist/${t.out} never loads it (move it to devDependencies)`,
      );
    }
  }
  return problems;
}

/**
 * Builds the deployables of the given packages (every one by default) into their fresh dist/; throws
 * naming each problem found. Returns the bundles written.
 */
export async function buildDeployables(pkgs?: readonly string[]): Promise<string[]> {
  const targets = pkgs ? TARGETS.filter((t) => pkgs.includes(t.pkg)) : TARGETS;
  for (const pkg of new Set(targets.map((t) => t.pkg)))
    rmSync(path.join(ROOT, pkg, 'dist'), { recursive: true, force: true });
  const problems = (await Promise.all(targets.map(buildTarget))).flat();
  if (problems.length) throw new Error(problems.map((p) => `✗ ${p}`).join('\n'));
  return targets.map((t) => `${t.pkg}/dist/${t.out}`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const built = await buildDeployables();
  console.log(`built ${built.length} bundles in ${Date.now() - started} ms: ${built.join(', ')}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  });
}
