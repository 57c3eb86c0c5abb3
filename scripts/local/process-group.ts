// Child processes that the local stack owns. Each runs in a process group of its own (detached), so a
// Ctrl-C in the terminal reaches only the orchestrator, which then stops them in order (services before
// the databases they use) by signalling the whole group: nothing a child started is left behind.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type ManagedProcess = {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  /** True until the process has exited. */
  running(): boolean;
  /** Signals the group, waits up to `graceMs`, then SIGKILLs the group; safe to call twice. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
  /** SIGKILLs the whole group at once (synchronous: usable from an 'exit' handler). */
  kill(): void;
};

export type SpawnGroupOptions = Pick<SpawnOptions, 'cwd' | 'env' | 'uid' | 'gid'> & {
  /** Append stdout and stderr to this file; otherwise they are piped and handed to `onOutput`. */
  logFile?: string;
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
};

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // the group is gone already
  }
}

/** True while any process of the group `pid` is alive (signal 0 probes without signalling). */
export function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0 as unknown as NodeJS.Signals);
}

export function spawnGroup(
  name: string,
  command: string,
  args: string[],
  options: SpawnGroupOptions = {},
): ManagedProcess {
  const { logFile, onOutput, ...spawnOptions } = options;
  const fd = logFile ? openSync(logFile, 'a') : undefined;
  const child = spawn(command, args, {
    ...spawnOptions,
    detached: true,
    stdio: fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd],
  });
  if (fd !== undefined) closeSync(fd); // the child holds its own copy
  if (child.pid === undefined) {
    // spawn failed synchronously (ENOENT is reported through 'error'); keep a consistent shape
    child.once('error', () => undefined);
  }
  child.stdout?.setEncoding('utf8').on('data', (c: string) => onOutput?.(c, 'stdout'));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => onOutput?.(c, 'stderr'));
  let alive = true;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      resolve({ code, signal });
    });
    child.once('error', () => {
      alive = false;
      resolve({ code: 127, signal: null });
    });
  });
  let stopping: Promise<Exit> | null = null;
  const pid = child.pid ?? -1;
  return {
    name,
    pid,
    child,
    exited,
    running: () => alive,
    kill: () => {
      if (pid > 0) signalGroup(pid, 'SIGKILL');
    },
    stop(signal = 'SIGTERM', graceMs = 30_000) {
      stopping ??= (async () => {
        if (pid > 0 && alive) signalGroup(pid, signal);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), graceMs);
        });
        const first = await Promise.race([exited, late]);
        clearTimeout(timer);
        if (first === 'late') signalGroup(pid, 'SIGKILL');
        const exit = await exited;
        // The leader is gone; anything it forked into its group goes with it.
        if (pid > 0 && groupAlive(pid)) signalGroup(pid, 'SIGKILL');
        return exit;
      })();
      return stopping;
    },
  };
}

/** Polls `probe` until it resolves true, the deadline passes, or `abort` says to give up. */
export async function waitUntil(
  probe: () => Promise<boolean>,
  { timeoutMs, intervalMs = 200, abort }: { timeoutMs: number; intervalMs?: number; abort?: () => string | null },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = abort?.();
    if (reason) throw new Error(reason);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
