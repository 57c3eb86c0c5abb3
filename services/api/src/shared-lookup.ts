/**
 * Group reads of one key: at most one read per key in flight; callers arriving meanwhile wait for the
 * next read, which is sent when the one in flight returns and answers all of them.
 *
 * Every caller still gets a read that started after it arrived (it never joins a read already sent), so
 * it sees every write committed before its request came in: a revoked token is refused at once, as with
 * one read per request. What changes is only how many requests share a read: one per request when the
 * key is quiet, more and more as requests for the key pile up (the same idea as a group commit).
 */
export class SharedLookup<V> {
  private readonly pending = new Map<string, { next: Deferred<V> | null }>();

  constructor(private readonly read: (key: string) => Promise<V>) {}

  get(key: string): Promise<V> {
    const entry = this.pending.get(key);
    if (!entry) {
      const first = { next: null };
      this.pending.set(key, first);
      return this.send(key, first);
    }
    entry.next ??= deferred<V>();
    return entry.next.promise;
  }

  private send(key: string, entry: { next: Deferred<V> | null }): Promise<V> {
    const result = this.read(key);
    const after = () => {
      const waiting = entry.next;
      if (!waiting) {
        this.pending.delete(key);
        return;
      }
      entry.next = null; // callers arriving from now on wait for the read after this one
      this.send(key, entry).then(waiting.resolve, waiting.reject);
    };
    result.then(after, after);
    return result;
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
