// If the orchestrator itself was killed (SIGKILL, a crash of the machine's terminal session…), its
// children live on in their own process groups. It records them in a pids file of its own stack instance
// (see instanceSuffix); the next start on the same ports stops whatever of them still runs before it
// checks ports, so a dead run never blocks a new one. A stack on other ports has another file and is
// left alone, and a live stack on the same ports is refused, not killed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { groupAlive } from '../local/process-group';
import { PORT_VARS, readPorts, type PortName } from './config';

export type Recorded = {
  name: string;
  pid: number;
  /** a substring of its command line, guarding against pid reuse */ match: string;
};
/** The orchestrator that wrote the file (its whole command line as `match`), and its children. */
type PidsFile = { owner: Recorded; children: Recorded[] };

/**
 * What this stack's own files under .data/ (pids, logs, the plugin's certificate) end with: '' on the
 * default ports (the names the docs use), else `-<hash of the port set>`. Two stacks cannot share a
 * port, so the port set tells stack instances apart.
 */
export function instanceSuffix(ports: Record<PortName, number>): string {
  const names = Object.keys(PORT_VARS) as PortName[];
  const defaults = readPorts({});
  if (names.every((n) => ports[n] === defaults[n])) return '';
  return `-${createHash('sha256')
    .update(names.map((n) => `${n}=${ports[n]}`).join(','))
    .digest('hex')
    .slice(0, 8)}`;
}

/** `.data/stack.pids` on the default ports, `.data/stack-<hash>.pids` otherwise. */
export function pidsFile(dataDir: string, suffix: string): string {
  return path.join(dataDir, `stack${suffix}.pids`);
}

function cmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

const isRunning = (r: Recorded) => cmdline(r.pid)?.includes(r.match) === true;

export function recordChildren(file: string, children: Recorded[]): void {
  const owner: Recorded = { name: 'stack', pid: process.pid, match: cmdline(process.pid) ?? process.argv.join(' ') };
  writeFileSync(file, JSON.stringify({ owner, children } satisfies PidsFile, null, 1));
}

export function forgetChildren(file: string): void {
  rmSync(file, { force: true });
}

/** The file's contents; a plain array is the format before the owner was recorded. */
function readRecord(file: string): PidsFile | { owner: null; children: Recorded[] } {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as PidsFile | Recorded[];
    return Array.isArray(parsed) ? { owner: null, children: parsed } : parsed;
  } catch {
    return { owner: null, children: [] }; // unreadable: nothing to do
  }
}

/**
 * Stops the recorded process groups that still run the recorded command; returns their names. Throws,
 * touching nothing, when the stack that recorded them still runs: it is not a leftover.
 */
export async function stopLeftovers(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  const { owner, children } = readRecord(file);
  if (owner && owner.pid !== process.pid && isRunning(owner)) {
    throw new Error(
      `a stack on these ports is already running from this checkout (pid ${owner.pid}): stop it first (kill -TERM ${owner.pid}), or set other ports`,
    );
  }
  const alive = children.filter(isRunning);
  for (const r of alive) {
    try {
      process.kill(-r.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 15_000;
  while (alive.some((r) => groupAlive(r.pid)) && Date.now() < deadline)
    await new Promise((res) => setTimeout(res, 200));
  for (const r of alive) {
    try {
      if (groupAlive(r.pid)) process.kill(-r.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  forgetChildren(file);
  return alive.map((r) => r.name);
}
