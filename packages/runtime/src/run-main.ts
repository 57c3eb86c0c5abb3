import { ConfigError } from './env';

/**
 * A deployable's start, the one shape of every `main.ts`: `runMain('api', main)` runs `main` (parse the
 * environment, build, serve, register the shutdown; async where a step awaits, as the emulator's seed
 * file). If it throws or its promise rejects, one JSON line goes to stderr and the process exits 1: for a
 * bad environment `invalid configuration` naming every bad variable and what is wrong with it, for
 * anything else `failed to start` with the error. A stack trace says where something threw, which an
 * operator does not need; the line says what to fix, and log pipelines read it like any other line.
 */
export function runMain(service: string, main: () => void | Promise<void>): void {
  new Promise<void>((resolve) => resolve(main())).catch((err: unknown) => {
    process.stderr.write(`${JSON.stringify(failureLine(service, err))}\n`);
    process.exit(1);
  });
}

/** The one line a failed start writes (exported for tests). */
export function failureLine(service: string, err: unknown): Record<string, unknown> {
  const timestamp = new Date().toISOString();
  if (err instanceof ConfigError)
    return {
      level: 'error',
      message: 'invalid configuration',
      service,
      variables: err.variables,
      problems: err.problems,
      timestamp,
    };
  return {
    level: 'error',
    message: 'failed to start',
    service,
    error: err instanceof Error ? err.message : String(err),
    timestamp,
  };
}
