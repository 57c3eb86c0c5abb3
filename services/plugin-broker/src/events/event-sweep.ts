import type { QueueName } from '@rolelink/contracts';
import { linksWithDueEvents } from '@rolelink/db/events';
import type { Producer } from '@rolelink/queue';
import type { BrokerContext } from '../context';

type PluginCalls = Producer<typeof QueueName.pluginCalls>;

/**
 * The safety net of delivery: a `event-deliver` for every link with an event due (a recording whose
 * enqueue was lost to a Redis outage, a retry whose delayed job was lost). Finished events past their
 * retention are the event retention sweep's (event-retention.ts).
 */
export async function sweepEvents(ctx: BrokerContext, jobs: PluginCalls): Promise<number> {
  const links = await linksWithDueEvents(ctx.db);
  if (links.length > 0)
    await jobs.addBulk(
      'event-deliver',
      links.map((linkId) => ({ linkId })),
      { dedup: 'due', removeOnComplete: true, removeOnFail: 100 },
    );
  return links.length;
}
