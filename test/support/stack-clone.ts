import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A fresh clone of the committed tree at `clone`, its dependencies from this machine's pnpm store (no registry). */
export function cloneCheckout(root: string, clone: string): void {
  execFileSync('git', ['clone', '--quiet', root, clone], { stdio: 'pipe' });
  execFileSync('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], {
    cwd: clone,
    stdio: 'pipe',
    env: { ...process.env, CI: 'true' },
  });
}

export type StackRun = { proc: ChildProcess; output: () => string; exited: Promise<number | null> };

/**
 * `node scripts/stack.ts` (what scripts/start.sh execs once installed) in `clone`, on this environment plus
 * `env`; a name set to undefined in `env` is removed. Its output is kept, stdout and stderr together.
 */
export function startStackProcess(clone: string, env: NodeJS.ProcessEnv): StackRun {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const proc = spawn(process.execPath, ['--enable-source-maps', '--import', 'tsx', path.join('scripts', 'stack.ts')], {
    cwd: clone,
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, output: () => output, exited };
}
