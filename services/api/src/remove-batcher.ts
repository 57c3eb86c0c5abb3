import type { Pool } from 'pg';
import { removeUsers, type AuthGuard, type RemoveResult } from '@rolelink/db/list';
import type { SyncNotifier } from '@rolelink/queue';
import { LinkBatcher, sameGuard } from './link-batcher';

type Remove = { userId: string; requestId?: string; guard?: AuthGuard };

/**
 * Group commit for DELETE /users/:userId (link-batcher.ts), as adds have: a link's concurrent removals go
 * in one db removeUsers statement, a sync request asked per batch that changed the list.
 */
export class RemoveBatcher {
  private readonly batcher: LinkBatcher<Remove, RemoveResult>;

  constructor(deps: { pool: Pool; sync: SyncNotifier }) {
    this.batcher = new LinkBatcher<Remove, RemoveResult>(deps.sync, {
      write: (linkId, batch) =>
        removeUsers(
          deps.pool,
          linkId,
          batch.map((r) => r.userId),
          batch[0]!.guard,
        ),
      changed: (r) => r.removed,
      // Deleted twice at once: the second finds the user gone.
      repeated: (r) => ({ removed: false, listVersion: r.listVersion }),
      sameStatement: (first, r) => sameGuard(first.guard, r.guard),
    });
  }

  /** `guard`: as AddBatcher.add's. */
  remove(linkId: string, userId: string, requestId?: string, guard?: AuthGuard): Promise<RemoveResult> {
    return this.batcher.run(linkId, { userId, requestId, guard });
  }
}
