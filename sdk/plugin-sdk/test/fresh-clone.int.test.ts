import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The README's "Development" commands in a fresh clone of this repository, where nothing is installed:
 * `npm install`, `npm run build` and `npm pack ./dist/package` in sdk/plugin-sdk alone, with pnpm off PATH
 * and without the npm_* variables pnpm sets. So the SDK's own package.json must declare everything its
 * build needs (typescript, @types/node) and nothing npm cannot read (`workspace:` versions). It clones the
 * committed HEAD (uncommitted edits are not in it). npm fetches the SDK's dev dependencies from its cache
 * when it has them, else from the registry, like package.int.test.ts's install of the tarball.
 */

const execFileAsync = promisify(execFile);

function withoutPnpm(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([name]) => !/^(npm_|pnpm_)/i.test(name)));
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !existsSync(path.join(dir, 'pnpm')));
  return { ...clean, PATH: dirs.join(path.delimiter) };
}
const PLAIN = withoutPnpm(process.env);

async function run(file: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { cwd, env: PLAIN, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`, { cause: err });
  }
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
let dir: string;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the SDK from a fresh clone, with npm alone', () => {
  it('installs, builds and packs in sdk/plugin-sdk without pnpm or the workspace', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rolelink-sdk-clone-'));
    const clone = path.join(dir, 'repo');
    await run('git', ['clone', '--quiet', ROOT, clone], dir);
    const sdk = path.join(clone, 'sdk', 'plugin-sdk');
    expect(existsSync(path.join(clone, 'node_modules'))).toBe(false);
    await expect(run('sh', ['-c', 'command -v pnpm'], sdk)).rejects.toThrow();

    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], sdk);
    await run('npm', ['run', 'build'], sdk);
    await run('npm', ['pack', './dist/package'], sdk);
    const { version } = JSON.parse(await readFile(path.join(sdk, 'package.json'), 'utf8')) as { version: string };
    expect((await readdir(sdk)).filter((f) => f.endsWith('.tgz'))).toEqual([`rolelink-plugin-sdk-${version}.tgz`]);
    expect(existsSync(path.join(sdk, 'dist', 'package', 'dist', 'index.d.ts'))).toBe(true);
  }, 300_000);
});
