import type { Pool } from 'pg';
import { withSweepLock } from '@rolelink/db/client';
import { linksWantingSync } from '@rolelink/db/sync';
import type { Logger } from '@rolelink/runtime';
import type { SyncNotifier } from '@rolelink/queue';

/** Marks younger than this are still on the queue's fast path. */
const GRACE_MS = 10_000;

/**
 * The `outbox-sweep` job (maintenance.ts): re-enqueues links marked "sync wanted" whose request may have
 * been lost (Redis was down when they were written). Deduplicated enqueueing makes a repeat harmless; the
 * sweep's advisory lock keeps replicas from doing it at once. Returns the links found wanting.
 */
export async function sweepOutbox(pool: Pool, sync: SyncNotifier, logger: Logger, graceMs = GRACE_MS): Promise<number> {
  const found = await withSweepLock(pool, 'outbox', async (client) => {
    const ids = await linksWantingSync(client, graceMs);
    let queued = 0;
    for (const id of ids) if (await sync.notify(id)) queued++;
    return { wanting: ids.length, queued };
  });
  if (found?.wanting) logger.info('outbox sweep', found);
  return found?.wanting ?? 0;
}
