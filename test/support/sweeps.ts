import { withSweepLock, type Queryable, type SweepLock } from '@rolelink/db/client';
import type { LogLine } from '@rolelink/runtime';

/**
 * Holds a sweep's advisory lock on a session of its own, as another replica in the middle of that sweep
 * would; resolves once it is held, with the function that releases it.
 */
export async function holdSweepLock(db: Queryable, sweep: SweepLock): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const until = new Promise<void>((resolve) => (release = resolve));
  let held: () => void = () => undefined;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const done = withSweepLock(db, sweep, async () => {
    held();
    await until;
  });
  await Promise.race([holding, done.then(() => Promise.reject(new Error(`the ${sweep} sweep's lock was not free`)))]);
  return async () => {
    release();
    await done;
  };
}

/** The lines a sweep logged with `message`, each as its fields besides level and message. */
export function sweepLines(lines: readonly LogLine[], message: string): Record<string, unknown>[] {
  return lines
    .filter((l) => l.message === message)
    .map(({ level: _level, message: _message, service: _service, timestamp: _timestamp, ...fields }) => fields);
}
