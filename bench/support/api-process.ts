// The API under test as a real, separate process, so the memory measured is the API's own; its resident
// set is read from /proc while a figure runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ROOT } from './api-db';
import { bundle, buildDeployables } from '../../scripts/build';
import { freePort } from '../../scripts/free-port';
import { imageCommand, spelledOut, type Form } from '../../scripts/service-process';

export type RunningApi = { pid: number; port: number; origin: string; child: ChildProcess; stop(): Promise<void> };

function ready(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/**
 * How a process runs the API and the bare baseline. `compiled` (what `pnpm bench api` uses unless told
 * otherwise) is what ships: the API's bundle (`pnpm build`'s services/api/dist/main.js, built from the
 * current sources once per process) with the node options of the image's CMD, and the bare server bundled
 * the same way and run with the same options. `tsx` (the default here, for the reliability tests, which
 * run beside other tests and must not rebuild a dist/ another test reads) runs both from source, each
 * file compiled by tsx into a module of its own. The POST figure read the same either way, within its
 * noise (docs/benchmarks.md); compiled is what the figures are judged on.
 */
export type RunForm = Form;

const API_SOURCE = 'services/api/src/main.ts';
const API_BUNDLE = 'services/api/dist/main.js';
const BARE_SOURCE = 'bench/support/bare-post-server.ts';
// Beside the API's package, so its npm imports (pg, the API's own dependencies) resolve from
// services/api/node_modules as the API bundle's do; .bench/ is ignored by git and by the image build.
const BARE_BUNDLE = 'services/api/.bench/bare-post-server.js';

let built: Promise<unknown> | null = null;
/** The API's bundle and the bare server's, from the current sources, built once per bench process. */
function buildOnce(): Promise<unknown> {
  built ??= Promise.all([
    buildDeployables(['services/api']),
    bundle(path.join(ROOT, BARE_SOURCE), path.join(ROOT, BARE_BUNDLE)),
  ]);
  return built;
}

/** node's arguments for a script in a form: the image's options and the bundle, or tsx and the source. */
async function nodeArgs(
  form: RunForm,
  source: string,
  compiled: string,
): Promise<{ args: string[]; env: Record<string, string> }> {
  if (form === 'tsx') return { args: ['--import', 'tsx', source], env: {} };
  await buildOnce();
  const image = imageCommand('api');
  return {
    args: [...image.nodeArgs, path.join(ROOT, compiled)],
    env: image.nodeOptions ? { NODE_OPTIONS: image.nodeOptions } : {},
  };
}

/**
 * The API as its own process, so the pid and the RSS are the API's (from source unless `form` says
 * compiled: RunForm). The outbox sweeper is slowed to once an hour: its upload-staging GC would otherwise
 * delete the 30M staged rows in the background of later figures.
 */
export async function startApi(
  env: Record<string, string>,
  opts: { cpuProfDir?: string; form?: RunForm } = {},
): Promise<RunningApi> {
  const port = await freePort();
  const run = await nodeArgs(opts.form ?? 'tsx', API_SOURCE, API_BUNDLE);
  return startProcess(run.args, port, '/readyz', opts.cpuProfDir, {
    ...run.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    SWEEP_EVERY_MS: '3600000',
    ...env,
    ...(env.REDIS_URL ? { REDIS_URL: spelledOut(env.REDIS_URL) } : {}),
    ...(env.DATABASE_URL ? { DATABASE_URL: spelledOut(env.DATABASE_URL) } : {}),
  });
}

/** The POST figure's baseline (bare-post-server.ts), a process of its own started the same way as the API. */
export async function startBarePostServer(databaseUrl: string, form: RunForm): Promise<RunningApi> {
  const port = await freePort();
  const run = await nodeArgs(form, BARE_SOURCE, BARE_BUNDLE);
  return startProcess(run.args, port, '/ready', undefined, {
    ...run.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    BARE_PORT: String(port),
  });
}

async function startProcess(
  nodeArgv: string[],
  port: number,
  readyPath: string,
  cpuProfDir: string | undefined,
  env: Record<string, string>,
): Promise<RunningApi> {
  const script = nodeArgv.at(-1)!;
  const prof = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  // V8 flags for the API and the bare server (not the load generator), e.g. BENCH_API_NODE_FLAGS=--max-semi-space-size=2
  // to measure a memory setting's cost in throughput before the images adopt it (docs/benchmarks.md), or
  // BENCH_API_NODE_FLAGS='--trace-gc --trace-gc-nvp' with BENCH_API_STDOUT=1, which passes their stdout
  // through: one line per collection, each prefixed by its process id.
  const flags = (process.env.BENCH_API_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, ...prof, ...nodeArgv], {
    cwd: ROOT,
    stdio: ['ignore', process.env.BENCH_API_STDOUT ? 'inherit' : 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const orphanGuard = () => child.kill('SIGKILL'); // the bench dying must not leave the process running
  process.once('exit', orphanGuard);
  void exited.then(() => process.removeListener('exit', orphanGuard));
  // The start-up's deadline follows its progress, the CPU time the process spends (compiling, connecting),
  // not a fixed 60 s: at load 20 tsx's start from source is slow but moving. A process that uses no CPU
  // for STARTUP_STALL_MS, or is not ready after STARTUP_CAP_MS however busy, fails.
  const begun = Date.now();
  let cpu = -1;
  let deadline = begun + STARTUP_STALL_MS;
  while (!(await ready(port, readyPath))) {
    if (child.exitCode !== null) throw new Error(`${script} exited during start-up (code ${child.exitCode})`);
    const used = child.pid ? safeCpuMs(child.pid) : cpu;
    if (used > cpu) {
      cpu = used;
      deadline = Math.min(Date.now() + STARTUP_STALL_MS, begun + STARTUP_CAP_MS);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${script} did not become ready (${Math.round((Date.now() - begun) / 1000)} s, ${cpu} ms of CPU)`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: child.pid!,
    port,
    origin: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

const STARTUP_STALL_MS = 30_000;
const STARTUP_CAP_MS = 10 * 60_000;

/** cpuMs, or -1 once the process is gone (its exit is reported by the caller). */
function safeCpuMs(pid: number): number {
  try {
    return cpuMs(pid);
  } catch {
    return -1;
  }
}

/** CPU time (user + system) a process has used so far, in ms (from /proc/<pid>/stat, 100 ticks/s). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * Peak resident set of a process over a window: the kernel's high-water mark (VmHWM, reset at the start
 * through clear_refs) and, as a cross-check, the highest VmRSS seen by polling every 20 ms.
 */
export class RssWindow {
  private maxPolledKb = 0;
  private timer: NodeJS.Timeout;
  readonly startKb: number;
  private hwmReset = true;

  constructor(private readonly pid: number) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      this.hwmReset = false; // not permitted: VmHWM is then the lifetime peak, the polled value still holds
    }
    this.startKb = statusKb(pid, 'VmRSS');
    this.maxPolledKb = this.startKb;
    this.timer = setInterval(() => this.poll(), 20);
  }

  private poll(): void {
    try {
      this.maxPolledKb = Math.max(this.maxPolledKb, statusKb(this.pid, 'VmRSS'));
    } catch {
      /* the process is gone; the window ends with what was seen */
    }
  }

  /** Peak in MiB (the larger of the polled maximum and the kernel's high-water mark). */
  stop(): { peakMiB: number; startMiB: number; endMiB: number; source: string } {
    clearInterval(this.timer);
    this.poll();
    let hwm = NaN;
    let end = NaN;
    try {
      hwm = statusKb(this.pid, 'VmHWM');
      end = statusKb(this.pid, 'VmRSS');
    } catch {
      /* gone */
    }
    const peakKb = Math.max(this.maxPolledKb, this.hwmReset && Number.isFinite(hwm) ? hwm : 0);
    return {
      peakMiB: peakKb / 1024,
      startMiB: this.startKb / 1024,
      endMiB: end / 1024,
      source: this.hwmReset ? 'VmHWM+poll' : 'poll',
    };
  }
}
