/** The error a `withDeadline` raises when the work does not settle in time. */
export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}

/**
 * `work`, or a rejection with a `DeadlineError` once `ms` pass without it settling. The work itself is not
 * cancelled (a caller that can abort it passes a signal of its own). The timer is cleared when the race
 * ends and never keeps the process alive on its own.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message)), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
