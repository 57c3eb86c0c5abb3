// Unpacks, installs and builds Spacebar's server (../shared/platforms/spacebar) into .cache/spacebar/<tarball hash>,
// reusing that directory when an earlier run finished it. Applies the fixes ../shared/platforms/README.md lists:
// drop the two packages the npm registry lacks (a throwing stub stands in for harmony-erlpack, which only the
// gateway's binary encoding uses), and apply its patches/ by hand where they no longer match its own lockfile.
// Runs on the Node that runs this script (the pinned one).
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');
export const spacebarTarball =
  process.env.SPACEBAR_TARBALL ?? path.resolve(repoRoot, '../shared/platforms/spacebar/spacebar-74df883a4.tar.xz');
const cacheRoot = path.join(repoRoot, '.cache/spacebar');

/** The registry has neither: the first is a stub below, nothing under src/ imports the second. */
const droppedPackages = ['harmony-erlpack', '@spacebarchat/pion-webrtc'];

export interface PreparedSpacebar {
  dir: string;
  /** Whether this call built it (false: reused from an earlier run). */
  built: boolean;
}

export async function prepareSpacebar(log: (line: string) => void = console.log): Promise<PreparedSpacebar> {
  const hash = createHash('sha256').update(readFileSync(spacebarTarball)).digest('hex').slice(0, 16);
  const dir = path.join(cacheRoot, hash);
  const readyMark = path.join(dir, '.rolelink-ready');
  if (existsSync(readyMark)) return { dir, built: false };

  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`unpacking ${path.basename(spacebarTarball)} into ${path.relative(repoRoot, dir)}`);
  await run('tar', ['-xJf', spacebarTarball, '-C', dir], dir, log);

  dropUnpublishedPackages(dir);
  log('installing its dependencies (npm ci; minutes on a busy machine)');
  // --ignore-scripts: its postinstall (patch-package) stops on the stale patches, husky wants a git tree, and the
  // only native modules (bcrypt, cbor-extract) load their prebuilt binaries without an install step.
  await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], dir, log);
  writeErlpackStub(dir);
  await applyPatches(dir, log);

  log('building it (tsc, then its request schemas)');
  await run('npm', ['run', 'build:src'], dir, log);
  await run('npm', ['run', 'generate:schema'], dir, log);
  writeFileSync(readyMark, `${new Date().toISOString()}\n`);
  return { dir, built: true };
}

function dropUnpublishedPackages(dir: string): void {
  const pkgPath = path.join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { dependencies: Record<string, string> };
  const lockPath = path.join(dir, 'package-lock.json');
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string> }>;
  };
  for (const name of droppedPackages) {
    delete pkg.dependencies[name];
    delete lock.packages['']?.dependencies?.[name];
    delete lock.packages[`node_modules/${name}`];
  }
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 4)}\n`);
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 4)}\n`);
}

function writeErlpackStub(dir: string): void {
  const stub = path.join(dir, 'node_modules/harmony-erlpack');
  mkdirSync(stub, { recursive: true });
  writeFileSync(path.join(stub, 'package.json'), '{"name":"harmony-erlpack","version":"0.0.0","main":"index.js"}\n');
  const refuse = "() => { throw new Error('harmony-erlpack stub: the ETF gateway encoding is not available'); }";
  writeFileSync(path.join(stub, 'index.js'), `exports.pack = ${refuse};\nexports.unpack = ${refuse};\n`);
  writeFileSync(
    path.join(stub, 'index.d.ts'),
    'export declare function pack(data: unknown): Buffer;\nexport declare function unpack(data: ArrayBufferLike): unknown;\n',
  );
}

/** Applies each of its patches/ that still matches; the body-parser one (snowflakes parsed as big numbers, which
 * its routes rely on) is re-applied by its two substitutions when the file moved under it. */
async function applyPatches(dir: string, log: (line: string) => void): Promise<void> {
  for (const file of readdirSync(path.join(dir, 'patches')).sort()) {
    const patchFile = path.join(dir, 'patches', file);
    try {
      await run('patch', ['-p1', '--forward', '--batch', '--dry-run', '-s', '-i', patchFile], dir, () => {});
      await run('patch', ['-p1', '--forward', '--batch', '-s', '-i', patchFile], dir, log);
      log(`patch ${file}: applied`);
    } catch {
      if (file.startsWith('body-parser+')) {
        patchBodyParserByHand(dir);
        log(`patch ${file}: stale against the locked version, applied by hand`);
      } else {
        log(`patch ${file}: stale against the locked version, skipped`);
      }
    }
  }
}

function patchBodyParserByHand(dir: string): void {
  const file = path.join(dir, 'node_modules/body-parser/lib/types/json.js');
  let source = readFileSync(file, 'utf8');
  if (source.includes('JSONbig')) return;
  source = source.replace(/^((?:var|const) debug = .*)$/m, '$1\nconst JSONbig = require("json-bigint");');
  source = source.replace(/JSON\.parse\(/g, 'JSONbig.parse(');
  source = source.replace('error.stack = obj.stack.replace(', 'error.stack = obj.stack?.replace(');
  if (!source.includes('require("json-bigint")')) throw new Error(`body-parser's json.js changed shape: ${file}`);
  writeFileSync(file, source);
}

export function run(command: string, args: string[], cwd: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let tail = '';
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else {
        log(tail);
        reject(new Error(`${command} ${args.join(' ')} exited with ${code}`));
      }
    });
  });
}

if (require.main === module) {
  const started = Date.now();
  prepareSpacebar((line) => console.log(`spacebar: ${line}`)).then(
    ({ dir, built }) =>
      console.log(`spacebar: ${built ? 'built' : 'reused'} ${dir} (${Math.round((Date.now() - started) / 1000)} s)`),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
