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

  constructor(private readonly connection: Redis, prefix: string, private readonly logger: Logger, private readonly timeoutMs = 1_000) {
    this.producer = new Producer(QueueName.roleSync, connection, prefix);
  }

  async notify(linkId: string): Promise<boolean> {
    try {
      // BullMQ waits for a connection that is not ready instead of failing; a write must not wait on Redis.
      if (this.connection.status !== 'ready') throw new Error(`redis ${this.connection.status}`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('enqueue timed out')), this.timeoutMs);
      });
      await Promise.race([enqueueLinkSync(this.producer, linkId), timeout]).finally(() => clearTimeout(timer));
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
