/**
 * What a scrape-time collector reads from PostgreSQL or Redis, bounded so /metrics answers within a second
 * whatever is down (unbounded, a stopped Redis hangs or fails /metrics, so `rolelink_dependency_up` is
 * never scraped and the wrong alert fires).
 *
 * prom-client runs a scrape's collectors concurrently; each waits at most COLLECT_TIMEOUT_MS for its
 * sample. A sample that fails or is late leaves the last value it read in place, reported as stale
 * (`rolelink_metrics_stale{collector}` = 1) rather than failing or holding the scrape. At most one read
 * per collector is in flight: a read that hangs (a command queued until Redis returns) is not repeated
 * by every scrape, and when it does finish its value is kept for the next one.
 */
// 700 ms: the collectors run concurrently, so a scrape takes about this plus writing the text out, inside
// the 1 s budget; a healthy ping or count answers in a few ms even on a loaded 2-core host.
export const COLLECT_TIMEOUT_MS = 700;

export type Reading<T> = { value: T | undefined; fresh: boolean };

export function boundedSample<T>(sample: () => Promise<T>, timeoutMs = COLLECT_TIMEOUT_MS): () => Promise<Reading<T>> {
  let last: T | undefined;
  let inflight: Promise<boolean> | null = null;
  const start = () =>
    (inflight ??= sample().then(
      (value) => {
        last = value;
        inflight = null;
        return true;
      },
      () => {
        inflight = null;
        return false;
      },
    ));
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    const fresh = await Promise.race([start(), late]).finally(() => clearTimeout(timer));
    return { value: last, fresh };
  };
}

/**
 * One reading per scrape for every gauge that asks while it is under way (prom-client asks all of a
 * scrape's collectors at once): the sync-lag gauges and the stale marker see the same answer.
 */
export function joinScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | null = null;
  return () => (current ??= read().finally(() => (current = null)));
}
