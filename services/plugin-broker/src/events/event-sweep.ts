import type { QueueName } from '@rolelink/contracts';
import { linksWithDueEvents, pruneEvents } from '@rolelink/db/events';
import type { Producer } from '@rolelink/queue';
import { DEFAULT_EVENT_DELIVERY, type BrokerContext } from '../context';

export const EVENT_SWEEP_SCHEDULER_ID = 'plugin-events-sweep';

type PluginCalls = Producer<typeof QueueName.pluginCalls>;

/** The repeating sweep (idempotent across replicas: one scheduler per id). */
export async function scheduleEventSweep(jobs: PluginCalls, everyMs: number): Promise<void> {
  await jobs.schedule(EVENT_SWEEP_SCHEDULER_ID, everyMs, 'event-sweep', {}, { removeOnComplete: true, removeOnFail: 100 });
}

/**
 * The safety net of delivery: a `event-deliver` for every link with an event due (a recording whose
 * enqueue was lost to a Redis outage, a retry whose delayed job was lost), and the housekeeping.
 */
export async function sweepEvents(ctx: BrokerContext, jobs: PluginCalls): Promise<number> {
  const links = await linksWithDueEvents(ctx.db);
  if (links.length > 0)
    await jobs.addBulk(
      'event-deliver',
      links.map((linkId) => ({ linkId })),
      { dedup: 'due', removeOnComplete: true, removeOnFail: 100 },
    );
  await pruneEvents(ctx.db, (ctx.events ?? DEFAULT_EVENT_DELIVERY).retentionDays);
  return links.length;
}
