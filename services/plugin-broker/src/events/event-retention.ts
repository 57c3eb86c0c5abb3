import { withSweepLock } from '@rolelink/db/client';
import { pruneEvents } from '@rolelink/db/events';
import { DEFAULT_EVENT_DELIVERY, type BrokerContext } from '../context';

/**
 * The `event-retention` job (scheduler `plugin-events-retention`): deletes delivered and dropped events
 * older than EVENT_RETENTION_DAYS with their attempts, and the subscriptions of deleted links once nothing
 * of theirs is pending; one broker replica at a time (the sweep's advisory lock). Returns the events deleted.
 */
export async function sweepEventRetention(ctx: BrokerContext): Promise<number> {
  const { retentionDays } = ctx.events ?? DEFAULT_EVENT_DELIVERY;
  const rows =
    (await withSweepLock(ctx.sessionDb ?? ctx.db, 'event-retention', (client) => pruneEvents(client, retentionDays))) ??
    0;
  if (rows) ctx.logger.info('plugin events past retention deleted', { rows, retentionDays });
  return rows;
}
