import type { Pool } from 'pg';
import { withSweepLock } from '@rolelink/db/client';
import { purgeNotifications } from '@rolelink/db/notifications';
import type { Logger } from '@rolelink/runtime';

/**
 * The notify queue's `retention` job (scheduler `notification-retention`): deletes delivered
 * notifications older than NOTIFICATION_RETENTION_DAYS (pending rows and each plugin's latest health
 * state stay); one worker replica at a time (the sweep's advisory lock). Returns the rows deleted.
 */
export async function sweepNotificationRetention(pool: Pool, retentionDays: number, logger: Logger): Promise<number> {
  const rows =
    (await withSweepLock(pool, 'notification-retention', (client) => purgeNotifications(client, retentionDays))) ?? 0;
  if (rows) logger.info('notifications past retention deleted', { rows, retentionDays });
  return rows;
}
