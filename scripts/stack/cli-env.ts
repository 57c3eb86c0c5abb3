// `./rolelink` run from this checkout talks to the stack scripts/start.sh started here, on whatever ports
// it was given (API_PORT, BROKER_PORT…), without the user exporting anything: the stack writes the
// settings the CLI needs to .data/stack.env and the launcher reads each one the environment does not set.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** What the CLI reads to reach this stack; nothing else is written (the launcher takes only these names). */
export const STACK_CLI_VARS = [
  'DATABASE_URL',
  'REDIS_URL',
  'QUEUE_PREFIX',
  'BROKER_URL',
  'PLATFORM_API_URL',
  'PLATFORM_BOT_TOKEN',
  'ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS',
] as const;

const header = (pid: number) =>
  `# written by scripts/start.sh (pid ${pid}) for ./rolelink; removed when that stack stops`;

/** `.data/stack.env`: one `NAME=value` line per setting (the latest start of this checkout wins). */
export function writeStackEnv(file: string, env: NodeJS.ProcessEnv, pid: number): void {
  const lines = STACK_CLI_VARS.filter((name) => env[name] !== undefined && !/[\r\n]/.test(env[name])).map(
    (name) => `${name}=${env[name]}`,
  );
  writeFileSync(file, `${header(pid)}\n${lines.join('\n')}\n`, { mode: 0o600 });
}

/** Removes the file if this stack (pid) wrote it: a later start's file is left alone. */
export function forgetStackEnv(file: string, pid: number): void {
  try {
    if (readFileSync(file, 'utf8').startsWith(`${header(pid)}\n`)) rmSync(file, { force: true });
  } catch {
    // none written, or already gone
  }
}
