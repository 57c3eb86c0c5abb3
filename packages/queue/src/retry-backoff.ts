import type { BackoffOptions, BackoffStrategy } from 'bullmq';
import type { QueueName } from '@rolelink/contracts';
import { backoffMs, type Backoff } from '@rolelink/wire-types/backoff';

/**
 * The waits between BullMQ's own retries of a queue's jobs, by the project's one backoff rule
 * (`backoffMs`). Only queues whose jobs are added with `attempts` > 1 have an entry; the others count
 * their retries themselves (role-sync in PostgreSQL, event delivery in the broker).
 */
export const queueBackoff: Partial<Record<QueueName, Backoff>> = {
  // A plugin's DELETE /config: 5 s, then 10 s (three attempts), as before it followed the rule.
  'plugin-calls': { firstMs: 5_000, maxMs: 60_000 },
};

/** The job option that selects the consumer's registered strategy (`retryBackoffStrategy`). */
export const customBackoff: BackoffOptions = { type: 'custom' };

/**
 * BullMQ's `settings.backoffStrategy` for a queue: the wait before a failed job's next attempt.
 * BullMQ counts `attemptsMade` from 1 for the first retry; the rule counts steps from 0.
 */
export function retryBackoffStrategy(backoff: Backoff): BackoffStrategy {
  return (attemptsMade: number) => backoffMs(backoff, attemptsMade - 1);
}
