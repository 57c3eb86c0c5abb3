import { QueueName } from '@rolelink/contracts';
import type { Producer } from './producer';

/** Asks for a sync of one link, deduplicated per link (jobDedup's `wanted` rule in contracts). */
export function enqueueLinkSync(producer: Producer<typeof QueueName.roleSync>, linkId: bigint | string): Promise<string | undefined> {
  return producer.add('sync', { linkId: String(linkId) }, { dedup: 'wanted' });
}
