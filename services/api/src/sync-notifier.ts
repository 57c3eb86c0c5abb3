import type { Redis } from 'ioredis';
import { QueueName } from '@rolelink/contracts';
import type { Logger } from '@rolelink/runtime';
import { enqueueLinkSync, Producer } from '@rolelink/queue';

/**
 * Tells the bot that a link's list changed. The database write already marked the link "sync wanted"
 * (outbox), so a failure here (Redis down) only delays the sync until the sweeper re-enqueues it: the
 * API answers success either way.
 */
export class SyncNotifier {
  private readonly producer: Producer<typeof QueueName.roleSync>;

  constructor(connection: Redis, prefix: string, private readonly logger: Logger) {
    this.producer = new Producer(QueueName.roleSync, connection, prefix);
  }

  async notify(linkId: string): Promise<boolean> {
    try {
      await enqueueLinkSync(this.producer, linkId);
      return true;
    } catch (err) {
      this.logger.warn('sync request not queued; the outbox sweeper will retry', { linkId, err: (err as Error).message });
      return false;
    }
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
