import type { Pool } from 'pg';
import { addUsers, type AddResult } from '@rolelink/db';
import type { SyncNotifier } from '@rolelink/queue';

type Waiting = { userId: string; storedLimit: number; requestId?: string; resolve(r: AddResult): void; reject(err: unknown): void };

/** Upper bound of one statement; a burst larger than this is written in several. */
const MAX_BATCH = 500;

/**
 * Group commit for POST /users/:userId. Every add of one link must lock the link row (stored limit,
 * counter, outbox marker in one transaction), so concurrent adds of one link run one after another
 * whatever the pool size; each paid a lock hand-over and a WAL flush, which capped a link at a few
 * hundred adds per second. Here at most one add statement per link is in flight: adds arriving
 * meanwhile wait and go together in the next statement. A lone add goes at once (no timer, no added
 * latency); under load the batch grows with the queue. One sync request per batch that changed the list,
 * carrying the first request's id (a deduplicated job carries one).
 *
 * Each caller still gets its own answer, and only after its row is committed and the sync requested,
 * as before. In one process only; replicas each batch their own requests.
 */
export class AddBatcher {
  private readonly queues = new Map<string, Waiting[]>();

  constructor(private readonly deps: { pool: Pool; sync: SyncNotifier }) {}

  add(linkId: string, userId: string, storedLimit: number, requestId?: string): Promise<AddResult> {
    return new Promise<AddResult>((resolve, reject) => {
      const queue = this.queues.get(linkId);
      const item = { userId, storedLimit, requestId, resolve, reject };
      if (queue)
        queue.push(item); // a batch of this link is in flight: this one goes in the next
      else {
        this.queues.set(linkId, [item]);
        void this.drain(linkId);
      }
    });
  }

  /** Writes the link's queued adds batch after batch until none is left; the queue exists while this runs. */
  private async drain(linkId: string): Promise<void> {
    const queue = this.queues.get(linkId)!;
    try {
      await this.drainQueue(linkId, queue);
    } catch (err) {
      for (const w of queue.splice(0)) w.reject(err); // never leave a caller waiting
    } finally {
      this.queues.delete(linkId);
    }
  }

  private async drainQueue(linkId: string, queue: Waiting[]): Promise<void> {
    while (queue.length) {
      // One stored limit per statement (a plan change between two requests is the only way they differ).
      const limit = queue[0]!.storedLimit;
      const batch: Waiting[] = [];
      for (let i = 0; i < queue.length && batch.length < MAX_BATCH;) {
        if (queue[i]!.storedLimit === limit) batch.push(queue.splice(i, 1)[0]!);
        else i++;
      }
      await this.write(linkId, limit, batch);
    }
  }

  private async write(linkId: string, limit: number, batch: Waiting[]): Promise<void> {
    // Two requests for the same user: the first gets the outcome, the second finds the user present.
    const first = new Map<string, number>();
    const ids: string[] = [];
    for (const w of batch) {
      if (!first.has(w.userId)) {
        first.set(w.userId, ids.length);
        ids.push(w.userId);
      }
    }
    let results: AddResult[];
    try {
      results = await addUsers(this.deps.pool, linkId, ids, limit);
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    // The next batch of this link may start while this one's sync request is on its way.
    void this.answer(linkId, batch, first, results);
  }

  private async answer(linkId: string, batch: Waiting[], first: Map<string, number>, results: AddResult[]): Promise<void> {
    if (results.some((r) => r.added)) await this.deps.sync.notify(linkId, batch[0]?.requestId); // never throws: the outbox covers a failure
    const answered = new Set<string>();
    for (const w of batch) {
      const r = results[first.get(w.userId)!]!;
      if (!answered.has(w.userId)) {
        answered.add(w.userId);
        w.resolve(r);
      } else w.resolve(r.added ? { added: false, atLimit: false, listVersion: r.listVersion } : r);
    }
  }
}
