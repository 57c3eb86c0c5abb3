/**
 * Reads `read` every `everyMs` (25 ms unless told) until `done` holds, and returns that value; throws
 * naming `what` and the last value once `timeoutMs` passes with it never holding (a cap on a wait for
 * work, not a figure). A caller whose reads cost something (a request that counts against a rate limit)
 * asks less often.
 */
export async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, what: string, timeoutMs: number, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
