import type { Pool } from 'pg';
import { addUsers, type AddResult, type AuthGuard } from '@rolelink/db/list';
import type { SyncNotifier } from '@rolelink/queue';
import { LinkBatcher, sameGuard } from './link-batcher';

/** `expiresAt`: when the membership ends on its own; null: permanent (also clears an earlier expiry). */
type Add = { userId: string; storedLimit: number; requestId?: string; expiresAt: Date | null; guard?: AuthGuard };

/**
 * Group commit for POST /users/:userId (link-batcher.ts): a link's concurrent adds go in one db addUsers
 * statement, one stored limit per statement (a plan change between two requests is the only way they
 * differ). A sync request asked per batch that changed the list, carrying the first request's id (a
 * deduplicated job carries one).
 */
export class AddBatcher {
  private readonly batcher: LinkBatcher<Add, AddResult>;

  constructor(deps: { pool: Pool; sync: SyncNotifier }) {
    this.batcher = new LinkBatcher<Add, AddResult>(deps.sync, {
      write: (linkId, batch) =>
        addUsers(
          deps.pool,
          linkId,
          batch.map((a) => a.userId),
          batch[0]!.storedLimit,
          batch.map((a) => a.expiresAt),
          batch[0]!.guard,
        ),
      changed: (r) => r.added,
      // Posted twice at once: the second finds the user present.
      repeated: (r) => (r.added ? { added: false, atLimit: false, listVersion: r.listVersion } : r),
      sameStatement: (first, a) => a.storedLimit === first.storedLimit && sameGuard(first.guard, a.guard),
    });
  }

  /** `guard`: checked in the statement (AuthGuard); the whole batch fails with StaleAuthError when it no longer holds. */
  add(
    linkId: string,
    userId: string,
    storedLimit: number,
    requestId?: string,
    expiresAt: Date | null = null,
    guard?: AuthGuard,
  ): Promise<AddResult> {
    return this.batcher.run(linkId, { userId, storedLimit, requestId, expiresAt, guard });
  }
}
