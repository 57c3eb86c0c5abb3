import type { AuthGuard } from '@rolelink/db/list';
import type { SyncNotifier } from '@rolelink/queue';

/** Whether two writes may share a statement as far as their guards go (the same checks, or none). */
export function sameGuard(a: AuthGuard | undefined, b: AuthGuard | undefined): boolean {
  if (!a || !b || a === b) return a === b; // one remembered link's requests share its guard object
  return a.tokenHash.equals(b.tokenHash) && a.plan === b.plan && a.paidSlots === b.paidSlots && a.rank === b.rank;
}

type Waiting<I, R> = { item: I; resolve(r: R): void; reject(err: unknown): void };

/** Upper bound of one statement; a burst larger than this is written in several. */
const MAX_BATCH = 500;

/** A single-user write: its user, and the API request that asked (carried by the batch's sync request). */
type Item = { userId: string; requestId?: string };

export type LinkBatchWriter<I extends Item, R> = {
  /** Writes one batch of distinct users of one link in one statement: one result per item, in order. */
  write(linkId: string, batch: I[]): Promise<R[]>;
  /** Whether this result changed the list (a batch with one such result asks for a sync). */
  changed(result: R): boolean;
  /** The answer to a request for a user already in the same batch, from the first one's. */
  repeated(first: R): R;
  /** Whether an item may share the statement of the queue's first one (default: always). */
  sameStatement?(first: I, item: I): boolean;
};

/**
 * Group commit for the single-user writes of one link (POST and DELETE /users/:userId). Every such write
 * must lock the link row (stored limit, counter, outbox marker and journal in one transaction), so
 * concurrent writes of one link run one after another whatever the pool size; each paid a lock
 * hand-over and a WAL flush, which capped a link at a few hundred writes per second. Here at most one
 * statement per link and kind is in flight: writes arriving meanwhile wait and go together in the next
 * statement. A lone write goes at the end of the event-loop turn it arrived in (no timer, no added
 * latency); under load the batch grows with the queue.
 *
 * Each caller still gets its own answer, and only after its row is committed, as with one statement per
 * request. Two requests for the same user in one batch: the first gets the outcome, the later ones what
 * they would have found right after it (`repeated`). In one process only; replicas each batch their own
 * requests.
 */
export class LinkBatcher<I extends Item, R> {
  private readonly queues = new Map<string, Waiting<I, R>[]>();

  constructor(
    private readonly sync: SyncNotifier,
    private readonly writer: LinkBatchWriter<I, R>,
  ) {}

  run(linkId: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(linkId);
      const waiting = { item, resolve, reject };
      if (queue)
        queue.push(waiting); // a batch of this link is in flight: this one goes in the next
      else {
        // Written at the end of this event-loop turn: every write of the link the turn brings (one auth
        // read answers many requests at once, SharedCall in @rolelink/runtime) goes in the same first statement.
        this.queues.set(linkId, [waiting]);
        setImmediate(() => void this.drain(linkId));
      }
    });
  }

  /**
   * Writes the link's queued items batch after batch until none is left; the queue exists while this runs.
   * Each batch leaves behind a new array for the items it did not take, rather than splicing one array
   * that lives as long as the load does: with one such array, one POST bench run in three still kept its
   * finished requests through the young-generation collections, as a long-lived Set did (serve.ts,
   * InFlight); without it, none of the next four.
   */
  private async drain(linkId: string): Promise<void> {
    try {
      for (let queue = this.queues.get(linkId)!; queue.length; queue = this.queues.get(linkId)!) {
        const first = queue[0]!.item;
        const batch: Waiting<I, R>[] = [];
        const rest: Waiting<I, R>[] = [];
        for (const w of queue) {
          const fits =
            batch.length < MAX_BATCH && (!this.writer.sameStatement || this.writer.sameStatement(first, w.item));
          (fits ? batch : rest).push(w);
        }
        this.queues.set(linkId, rest); // writes arriving meanwhile join the rest, in order
        await this.write(linkId, batch);
      }
    } catch (err) {
      for (const w of this.queues.get(linkId)!) w.reject(err); // never leave a caller waiting
    } finally {
      this.queues.delete(linkId);
    }
  }

  private async write(linkId: string, batch: Waiting<I, R>[]): Promise<void> {
    const firstOf = new Map<string, number>();
    const items: I[] = [];
    for (const w of batch) {
      if (!firstOf.has(w.item.userId)) {
        firstOf.set(w.item.userId, items.length);
        items.push(w.item);
      }
    }
    let results: R[];
    try {
      results = await this.writer.write(linkId, items);
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    this.answer(linkId, batch, items, firstOf, results);
  }

  private answer(linkId: string, batch: Waiting<I, R>[], items: I[], firstOf: Map<string, number>, results: R[]): void {
    // Not awaited: the answers do not wait for the sync request (SyncNotifier sends it within 50 ms); the
    // outbox mark committed with the rows covers a failure. It carries the batch's first request id.
    if (results.some((r) => this.writer.changed(r))) void this.sync.notify(linkId, items[0]?.requestId);
    const answered = new Set<string>();
    for (const w of batch) {
      const r = results[firstOf.get(w.item.userId)!]!;
      if (answered.has(w.item.userId)) w.resolve(this.writer.repeated(r));
      else {
        answered.add(w.item.userId);
        w.resolve(r);
      }
    }
  }
}
