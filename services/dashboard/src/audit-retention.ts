import type { Pool } from 'pg';
import { purgeAudit } from '@rolelink/db/audit';
import { withSweepLock } from '@rolelink/db/client';
import type { Logger } from '@rolelink/runtime';

/**
 * The `audit-retention` job (maintenance.ts): deletes admin audit entries older than AUDIT_RETENTION_DAYS;
 * one dashboard replica at a time (the sweep's advisory lock). Returns the entries deleted.
 */
export async function sweepAuditRetention(pool: Pool, retentionDays: number, logger: Logger): Promise<number> {
  const rows = (await withSweepLock(pool, 'audit-retention', (client) => purgeAudit(client, retentionDays))) ?? 0;
  if (rows) logger.info('audit entries past retention deleted', { rows, retentionDays });
  return rows;
}
