import { spawnGroup } from '../local/process-group';

export type StepOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: (m: string) => void;
  /** Registers the running step so a Ctrl-C stops it too; returns the unregister function. */
  track: (p: { stop(): Promise<unknown> }) => () => void;
  timeoutMs: number;
  /** Echo every output line as progress (default true). */
  echo?: boolean;
};

export type StepResult = { code: number | null; output: string };

/** Runs a one-shot command in its own process group; resolves with its exit code and output. */
export async function runStepResult(
  name: string,
  command: string,
  args: string[],
  o: StepOptions,
): Promise<StepResult> {
  let output = '';
  let partial = '';
  const proc = spawnGroup(name, command, args, {
    cwd: o.cwd,
    env: o.env,
    onOutput: (chunk) => {
      output += chunk;
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      if (o.echo !== false) for (const line of lines) if (line.trim()) o.log(`  ${name}: ${line.trim()}`);
    },
  });
  const untrack = o.track(proc);
  const timer = setTimeout(() => void proc.stop('SIGTERM', 5000), o.timeoutMs);
  try {
    const exit = await proc.exited;
    if (o.echo !== false && partial.trim()) o.log(`  ${name}: ${partial.trim()}`);
    return { code: exit.code, output };
  } finally {
    clearTimeout(timer);
    untrack();
  }
}

export async function runStep(name: string, command: string, args: string[], o: StepOptions): Promise<void> {
  const { code, output } = await runStepResult(name, command, args, o);
  if (code !== 0)
    throw new Error(
      `${name} failed (exit ${code})${o.echo === false ? `:\n${output.trim().split('\n').slice(-15).join('\n')}` : ''}`,
    );
}
