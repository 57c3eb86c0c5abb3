/**
 * Group reads of one key: at most one read per key in flight; callers arriving meanwhile wait for the
 * next read, which is sent when the one in flight returns and answers all of them. A key with no read in
 * flight is read at the end of the current event-loop turn (setImmediate), not at once: under load one
 * turn parses many requests, and all of them share that read instead of the first going alone and the
 * rest waiting a whole round trip for the next one (issue 24: about one read per request before).
 *
 * Every caller still gets a read that started after it arrived (it never joins a read already sent), so
 * it sees every write committed before its request came in: a revoked token is refused at once, as with
 * one read per request. What changes is only how many requests share a read: one per request when the
 * key is quiet, more and more as requests for the key pile up (the same idea as a group commit).
 */
export class SharedLookup<V> {
  /** Per key: the callers waiting for the next read (null: none yet); the entry exists while a read is due or in flight. */
  private readonly pending = new Map<string, { next: Deferred<V> | null }>();

  constructor(private readonly read: (key: string) => Promise<V>) {}

  get(key: string): Promise<V> {
    const entry = this.pending.get(key);
    if (entry) {
      entry.next ??= deferred<V>();
      return entry.next.promise;
    }
    const fresh = { next: deferred<V>() };
    this.pending.set(key, fresh);
    setImmediate(() => this.send(key, fresh));
    return fresh.next.promise;
  }

  /** Sends the read the waiting callers share; when it returns, the next one if callers arrived meanwhile. */
  private send(key: string, entry: { next: Deferred<V> | null }): void {
    const waiting = entry.next!;
    entry.next = null; // callers arriving from now on wait for the read after this one
    const after = () => {
      if (entry.next) this.send(key, entry);
      else this.pending.delete(key);
    };
    // A read that throws instead of rejecting fails its callers the same way.
    const result = new Promise<V>((resolve) => resolve(this.read(key)));
    result.then(waiting.resolve, waiting.reject);
    result.then(after, after);
  }
}

type Deferred<V> = { promise: Promise<V>; resolve: (v: V) => void; reject: (err: unknown) => void };

function deferred<V>(): Deferred<V> {
  let resolve!: (v: V) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
