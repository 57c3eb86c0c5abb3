import { jobDedup, QueueName } from '@rolelink/contracts';
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

/**
 * A sync of one link wanted now, not after the wait its last slice scheduled: the link's waiting job (a
 * yield's delayed wake-up, which holds the link's `wanted` dedup id, so a plain request rides it) is
 * promoted, or a job is enqueued. For a cause a check saw cleared ("retry now"), never for every write: a
 * rate limit's wait must stay a wait.
 */
export async function wakeLinkSync(producer: Producer<typeof QueueName.roleSync>, linkId: string): Promise<void> {
  await enqueueLinkSync(producer, linkId);
  const jobId = await producer.queue.getDeduplicationJobId(jobDedup[QueueName.roleSync].sync.wanted({ linkId }).id);
  const job = jobId ? await producer.queue.getJob(jobId) : undefined;
  // Raced by the worker (it started, or finished, meanwhile): then nothing waits.
  if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
}
