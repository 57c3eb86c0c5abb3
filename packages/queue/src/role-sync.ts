import { QueueName } from '@rolelink/contracts';
import type { Producer } from './producer';

/** Asks for a sync of one link, deduplicated per link (jobDedup's `wanted` rule in contracts); `requestId`: the API request asking. */
export function enqueueLinkSync(
  producer: Producer<typeof QueueName.roleSync>,
  linkId: bigint | string,
  requestId?: string,
): Promise<string | undefined> {
  return producer.add(
    'sync',
    { linkId: String(linkId), ...(requestId !== undefined && { requestId }) },
    { dedup: 'wanted' },
  );
}
