import type { Pool } from 'pg';
import { withSweepLock } from '@rolelink/db/client';
import { purgeDeletedLinks } from '@rolelink/db/links';
import type { Logger } from '@rolelink/runtime';

/**
 * The `link-purge` job: deletes the list, staging, journal, applied, history and override rows of
 * deleted links in bounded batches, a link whose roles are being stripped (strip-roles.ts) only once the
 * strip is done; one worker replica at a time (the sweep's advisory lock). Returns the rows deleted.
 */
export async function sweepLinkPurge(pool: Pool, logger: Logger): Promise<number> {
  const rows = (await withSweepLock(pool, 'link-purge', (client) => purgeDeletedLinks(client))) ?? 0;
  if (rows) logger.info('deleted links purged', { rows });
  return rows;
}
