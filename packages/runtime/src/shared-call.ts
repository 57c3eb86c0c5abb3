/**
 * Group calls of one key: at most one call per key in flight; callers arriving meanwhile wait for the
 * next call, which is sent when the one in flight returns and answers all of them. A key with no call in
 * flight is called at the end of the current event-loop turn (setImmediate), not at once: under load one
 * turn brings many callers, and all of them share that call instead of the first going alone and the
 * rest waiting a whole round trip for the next one.
 *
 * Every caller still gets a call that started after it arrived (it never joins a call already sent), so
 * it sees everything committed before it asked: the API's token look-up refuses a revoked token at once,
 * as with one read per request, and a sync request is queued after the write that asked for it. What
 * changes is only how many callers share a call: one each when the key is quiet, more and more as callers
 * of the key pile up (the same idea as a group commit).
 *
 * `arg`: what the call needs beyond the key; a shared call gets its first caller's (the request id a sync
 * request carries, say).
 */
export class SharedCall<V, A = undefined> {
  /** Per key: the callers waiting for the next call (null: none yet); the entry exists while a call is due or in flight. */
  private readonly pending = new Map<string, { next: Waiting<V, A> | null }>();

  /** Per key: when its last call was sent (performance.now()), for `opts.spacingMs`; bounded like a memo. */
  private readonly lastSent = new Map<string, number>();

  /**
   * `opts.atOnce`: a quiet key is called at once instead of at the end of the turn, for callers that
   * come one at a time (a write batch's sync request) and would only pay the wait.
   * `opts.spacingMs`: calls of one key start at least this far apart; a call due sooner waits, and the
   * callers arriving while it waits join it (it has not started: it still starts after each of them).
   * For a call whose answer nobody waits on: it trades that much latency for fewer calls.
   */
  constructor(
    private readonly call: (key: string, arg: A) => Promise<V>,
    private readonly opts: { atOnce?: boolean; spacingMs?: number } = {},
  ) {}

  get(key: string, ...[arg]: A extends undefined ? [arg?: A] : [arg: A]): Promise<V> {
    const entry = this.pending.get(key);
    if (entry) {
      entry.next ??= waiting<V, A>(arg as A);
      return entry.next.promise;
    }
    const fresh = { next: waiting<V, A>(arg as A) };
    this.pending.set(key, fresh);
    const { promise } = fresh.next;
    this.schedule(key, fresh, this.opts.atOnce === true);
    return promise;
  }

  /** Sends the entry's call when due: `opts.spacingMs` after the key's last one, else at once or at the end of the turn. */
  private schedule(key: string, entry: { next: Waiting<V, A> | null }, atOnce: boolean): void {
    const last = this.opts.spacingMs ? this.lastSent.get(key) : undefined;
    const wait = last === undefined ? 0 : last + this.opts.spacingMs! - performance.now();
    if (wait > 0) setTimeout(() => this.send(key, entry), wait);
    else if (atOnce) this.send(key, entry);
    else setImmediate(() => this.send(key, entry));
  }

  /** Sends the call the waiting callers share; when it returns, the next one if callers arrived meanwhile. */
  private send(key: string, entry: { next: Waiting<V, A> | null }): void {
    const group = entry.next!;
    entry.next = null; // callers arriving from now on wait for the call after this one
    if (this.opts.spacingMs) {
      if (this.lastSent.size >= 10_000) this.lastSent.clear(); // bounded: a forgotten key is merely due at once
      this.lastSent.set(key, performance.now());
    }
    const after = () => {
      if (entry.next) this.schedule(key, entry, true);
      else this.pending.delete(key);
    };
    // A call that throws instead of rejecting fails its callers the same way.
    const result = new Promise<V>((resolve) => resolve(this.call(key, group.arg)));
    result.then(group.resolve, group.reject);
    result.then(after, after);
  }
}

type Waiting<V, A> = { arg: A; promise: Promise<V>; resolve: (v: V) => void; reject: (err: unknown) => void };

function waiting<V, A>(arg: A): Waiting<V, A> {
  let resolve!: (v: V) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { arg, promise, resolve, reject };
}
