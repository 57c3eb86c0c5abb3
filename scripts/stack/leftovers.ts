// If the orchestrator itself was killed (SIGKILL, a crash of the machine's terminal session…), its
// children live on in their own process groups. It records them in .data/stack.pids; the next start
// stops whatever of them still runs before it checks ports, so a dead run never blocks a new one.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { groupAlive } from '../local/process-group';

export type Recorded = { name: string; pid: number; /** a substring of its command line, guarding against pid reuse */ match: string };

function cmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

export function recordChildren(file: string, children: Recorded[]): void {
  writeFileSync(file, JSON.stringify(children, null, 1));
}

export function forgetChildren(file: string): void {
  rmSync(file, { force: true });
}

/** Stops the recorded process groups that still run the recorded command; returns their names. */
export async function stopLeftovers(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  let recorded: Recorded[] = [];
  try {
    recorded = JSON.parse(readFileSync(file, 'utf8')) as Recorded[];
  } catch {
    /* unreadable: nothing to do */
  }
  const alive = recorded.filter((r) => cmdline(r.pid)?.includes(r.match));
  for (const r of alive) {
    try {
      process.kill(-r.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 15_000;
  while (alive.some((r) => groupAlive(r.pid)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
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
