/**
 * Reads `read` every `everyMs` (25 ms unless told) until `done` holds, and returns that value; throws
 * naming `what` and the last value once `timeoutMs` passes with it never holding (a cap on a wait for
 * work, not a figure). A caller whose reads cost something (a request that counts against a rate limit)
 * asks less often.
 */
export async function until<T>(
  read: () => Promise<T> | T,
  done: (v: T) => boolean,
  what: string,
  timeoutMs: number,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Polls until `pass`. The deadline follows progress, not the wall clock: it is `timeoutMs` after the
 * measure last changed — `progress` (a count, say) or, by default, the value read itself — so a busy
 * machine that is slow but moving never fails the wait (a sync at 3 changes/s at load 20 did, under a
 * fixed deadline), while a stall still does. Jest's timeout of the test bounds the whole.
 */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  pass: (v: T) => boolean,
  {
    timeoutMs = 20_000,
    intervalMs = 50,
    what = 'condition',
    progress,
  }: { timeoutMs?: number; intervalMs?: number; what?: string; progress?: (v: T) => unknown } = {},
): Promise<T> {
  let deadline = Date.now() + timeoutMs;
  const measureOf = progress ?? ((v: T) => JSON.stringify(v));
  let last: T = await read();
  let measure = measureOf(last);
  while (!pass(last)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what} (no progress for ${timeoutMs} ms); last value: ${JSON.stringify(last)?.slice(0, 500)}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
    last = await read();
    if (measureOf(last) !== measure) {
      measure = measureOf(last);
      deadline = Date.now() + timeoutMs;
    }
  }
  return last;
}
