// One service as its own process, started either from source (what the local stack runs) or from the
// compiled bundle (what the images run), timed from spawn until GET /readyz answers 200. Used by
// `pnpm bench startup` and the compiled-build test, so both start the services the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
export { freePort } from './free-port';
import { freePort } from './free-port';
import { LOCAL_CONNECTION_DEFAULTS } from '@rolelink/runtime/src/env';

export const ROOT = path.resolve(__dirname, '..');

export type ServiceName = 'api' | 'plugin-broker' | 'bot-worker' | 'dashboard';
export type Form = 'tsx' | 'compiled';

export const SERVICES: Record<ServiceName, { portVar: string; hostVar: string }> = {
  api: { portVar: 'API_PORT', hostVar: 'API_HOST' },
  'plugin-broker': { portVar: 'BROKER_PORT', hostVar: 'BROKER_HOST' },
  'bot-worker': { portVar: 'WORKER_PORT', hostVar: 'WORKER_HOST' },
  dashboard: { portVar: 'DASHBOARD_PORT', hostVar: 'DASHBOARD_HOST' },
};

/**
 * How an image starts a service, read from the Dockerfile so that the figures and tests that say
 * "compiled" run exactly what ships: the node options of the stage's CMD (`--max-semi-space-size`) and
 * the runtime stage's NODE_OPTIONS, if it sets any.
 */
export function imageCommand(name: ServiceName): { nodeArgs: string[]; nodeOptions: string } {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stage = (s: string) =>
    new RegExp(`^FROM \\S+ AS ${s}$([\\s\\S]*?)(?=^FROM |(?![\\s\\S]))`, 'm').exec(dockerfile)?.[1] ?? '';
  const cmd = /^CMD (\[.*\])$/m.exec(stage(name))?.[1];
  if (!cmd) throw new Error(`Dockerfile: no CMD in stage ${name}`);
  const argv = JSON.parse(cmd) as string[];
  // ["node", ...options, "dist/main.js"]
  return {
    nodeArgs: argv.slice(1, -1),
    nodeOptions: /^\s*(?:ENV\s+)?NODE_OPTIONS=(\S+)/m.exec(stage('runtime'))?.[1] ?? '',
  };
}

/**
 * node's arguments for a form. `tsx` is `node --enable-source-maps --import tsx …/src/main.ts`, what the
 * local stack runs (scripts/stack.ts), minus tsx's wrapper process, so the pid and RSS are the service's;
 * `compiled` is the image's command (imageCommand), with NODE_OPTIONS set by startService.
 */
export function serviceArgs(name: ServiceName, form: Form, packageDir = path.join(ROOT, 'services', name)): string[] {
  return form === 'tsx'
    ? ['--enable-source-maps', '--import', 'tsx', path.join(packageDir, 'src', 'main.ts')]
    : [...imageCommand(name).nodeArgs, path.join(packageDir, 'dist', 'main.js')];
}

/**
 * A connection string production accepts for this machine's servers: production refuses the development
 * defaults (LOCAL_CONNECTION_DEFAULTS) as a process that forgot its setting would have them,
 * so a test that means this machine's Redis names its database (`/0`, the same one) explicitly.
 */
export function spelledOut(url: string): string {
  const local = Object.values(LOCAL_CONNECTION_DEFAULTS) as string[];
  if (!local.includes(url.replace(/\/+$/, ''))) return url;
  return url.startsWith('redis') ? `${url.replace(/\/+$/, '')}/0` : url.replace('@127.0.0.1:', '@localhost:');
}

/**
 * Settings every service accepts in production mode, with throwaway secrets (long enough for the
 * production rule). The bot worker's platform is a name that never resolves: it is not called before a
 * job arrives, so readiness needs nothing from it. No drain window: tests and benchmarks stop at once.
 */
export function productionEnv(databaseUrl: string, redisUrl: string, queuePrefix: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: spelledOut(databaseUrl),
    REDIS_URL: spelledOut(redisUrl),
    QUEUE_PREFIX: queuePrefix,
    SHUTDOWN_DRAIN_MS: '0',
    ROLELINK_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_SESSION_SECRET: randomBytes(32).toString('hex'),
    BROKER_INTERNAL_TOKEN: randomBytes(32).toString('hex'),
    DASHBOARD_PUBLIC_URL: 'https://dashboard.invalid',
    PLATFORM_API_URL: 'https://platform.invalid/api',
    PLATFORM_BOT_TOKEN: randomBytes(32).toString('hex'),
    PLATFORM_OAUTH_CLIENT_ID: 'startup-check',
    PLATFORM_OAUTH_CLIENT_SECRET: randomBytes(16).toString('hex'),
  };
}

function readyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/readyz', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

export type RunningService = {
  name: ServiceName;
  form: Form;
  pid: number;
  port: number;
  /** ms from spawn until /readyz first answered 200 (polled every 10 ms). */
  startMs: number;
  /** CPU time (user + system) the process had used by then, in ms: the part of startMs a busy machine does not inflate. */
  startCpuMs: number;
  /** The process's resident set now (VmRSS), in bytes. */
  rss(): number;
  output(): string;
  /** Resolves once the output (stdout and stderr) matches `pattern`. */
  logged(pattern: RegExp): Promise<void>;
  /** Resolves with the exit code (null when a signal ended the process). */
  exited: Promise<number | null>;
  stop(): Promise<void>;
};

/**
 * Starts `name` and resolves once /readyz answers 200. `packageDir` runs another copy of the service's
 * package, e.g. a `pnpm deploy --prod` output (what an image holds), from its own directory. `node` runs it
 * on another Node.js binary than this process's (`pnpm bench startup --node-compare`).
 */
export async function startService(
  name: ServiceName,
  form: Form,
  env: Record<string, string>,
  opts: { packageDir?: string; timeoutMs?: number; node?: string } = {},
): Promise<RunningService> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const port = await freePort();
  const { portVar, hostVar } = SERVICES[name];
  const started = performance.now();
  const child: ChildProcess = spawn(opts.node ?? process.execPath, serviceArgs(name, form, opts.packageDir), {
    cwd: opts.packageDir ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...(form === 'compiled' ? { NODE_OPTIONS: imageCommand(name).nodeOptions } : {}),
      ...env,
      [portVar]: String(port),
      [hostVar]: '127.0.0.1',
    },
  });
  let out = '';
  const waiting = new Set<{ pattern: RegExp; resolve: () => void }>();
  const onOutput = (b: Buffer) => {
    out += b.toString();
    for (const w of waiting) {
      if (!w.pattern.test(out)) continue;
      waiting.delete(w);
      w.resolve();
    }
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(t);
  };
  while ((await readyz(port)) !== 200) {
    if (child.exitCode !== null)
      throw new Error(`${name} (${form}) exited during start-up with code ${child.exitCode}:\n${out}`);
    if (performance.now() - started > timeoutMs) {
      await stop();
      throw new Error(`${name} (${form}) was not ready within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - started;
  const startCpuMs = cpuMs(child.pid!);
  return {
    name,
    form,
    pid: child.pid!,
    port,
    startMs,
    startCpuMs,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024,
    output: () => out,
    logged: (pattern) =>
      pattern.test(out) ? Promise.resolve() : new Promise<void>((resolve) => waiting.add({ pattern, resolve })),
    exited,
    stop,
  };
}

/** CPU time (user + system) a process has used so far, in ms (/proc/<pid>/stat fields 14 and 15, 100 ticks/s). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
