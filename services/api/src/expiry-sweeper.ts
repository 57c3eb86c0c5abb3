import type { Pool } from 'pg';
import { EXPIRY_BATCH, linksWithDueExpiries, removeExpired } from '@rolelink/db/list';
import type { Logger } from '@rolelink/runtime';
import type { SyncNotifier } from '@rolelink/queue';

/**
 * Removes memberships whose time has come, exactly as a plugin's DELETE would: db
 * removeExpired writes the same rows, counter, version and journal (and the plugin's `member.expired`
 * events, in the same transaction), and the sync request follows. Run by the `expiry-sweep` job
 * (maintenance.ts). It runs
 * in the API (ours, so expiry does not depend on the plugin being up), on one pooled connection at a time,
 * one link and at most EXPIRY_BATCH rows per statement: a million expiries due in the same minute become
 * a hundred short transactions in a row, never a long lock on a link the API is writing to.
 *
 * One job runs at a time per interval whatever the replicas; should two ever overlap, two on the same link serialize on the link row and never remove a user twice
 * (removeExpired says why), so no lock between them is needed. `now` is injectable for tests.
 */
export class ExpirySweeper {
  private running: Promise<number> | null = null;

  constructor(
    private readonly deps: { pool: Pool; sync: SyncNotifier; logger: Logger },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One pass: until nothing is due at the pass's start time. Returns the memberships removed. */
  sweepOnce(): Promise<number> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(): Promise<number> {
    const now = this.now();
    let removed = 0;
    try {
      for (;;) {
        const links = await linksWithDueExpiries(this.deps.pool, now);
        if (!links.length) break;
        const before = removed;
        for (const linkId of links) {
          const result = await removeExpired(this.deps.pool, linkId, now, EXPIRY_BATCH);
          if (!result.userIds.length) continue;
          removed += result.userIds.length;
          await this.deps.sync.notify(linkId); // never throws: the outbox covers a failure
        }
        if (removed === before) break; // due rows of a link row that is gone: nothing this pass can remove
      }
      if (removed) this.deps.logger.info('expired memberships removed', { rows: removed });
    } catch (err) {
      this.deps.logger.warn('expiry sweep failed', { err: (err as Error).message });
    }
    return removed;
  }

  /** Waits for a sweep in progress (shutdown). */
  async stop(): Promise<void> {
    await this.running;
  }
}
