import type { Pool } from 'pg';
import { withSweepLock } from '@rolelink/db/client';
import { collectUploadGarbage } from '@rolelink/db/list';
import type { Logger } from '@rolelink/runtime';

/**
 * The `upload-sweep` job (maintenance.ts): deletes the staged rows and sessions of closed or expired
 * uploads, one replica at a time (the sweep's advisory lock). Returns the rows deleted.
 */
export async function sweepUploads(pool: Pool, logger: Logger): Promise<number> {
  const rows = (await withSweepLock(pool, 'uploads', (client) => collectUploadGarbage(client))) ?? 0;
  if (rows) logger.info('upload staging collected', { rows });
  return rows;
}
