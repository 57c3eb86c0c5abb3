import type { Pool } from 'pg';
import { withSweepLock } from '@rolelink/db/client';
import { collectIdempotencyKeys } from '@rolelink/db/list';
import type { Logger } from '@rolelink/runtime';

/**
 * The `idempotency-sweep` job (maintenance.ts): deletes idempotency keys past their 24 hours, one replica
 * at a time (the sweep's advisory lock). Returns the keys deleted.
 */
export async function sweepIdempotencyKeys(pool: Pool, logger: Logger): Promise<number> {
  const rows = (await withSweepLock(pool, 'idempotency', (client) => collectIdempotencyKeys(client))) ?? 0;
  if (rows) logger.info('expired idempotency keys collected', { rows });
  return rows;
}
