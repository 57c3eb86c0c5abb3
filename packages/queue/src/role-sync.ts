import { QueueName } from '@rolelink/contracts';
import type { Producer } from './producer';

/**
 * Asks for a sync of one link. Deduplicated per link with keepLastIfActive: at most one running and one
 * waiting job per link, so a burst of writes costs one extra pass, never thousands of jobs.
 */
export function enqueueLinkSync(producer: Producer<typeof QueueName.roleSync>, linkId: bigint | string): Promise<string | undefined> {
  const id = `link-${linkId}`;
  return producer.add('sync', { linkId: String(linkId) }, { deduplication: { id, keepLastIfActive: true }, jobId: undefined });
}
