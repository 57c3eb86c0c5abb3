import type { Redis } from 'ioredis';
import { QueueName } from '@rolelink/contracts';
import { SharedCall, type Logger } from '@rolelink/runtime';
import { Producer } from './producer';
import { enqueueLinkSync } from './role-sync';

/**
 * Tells the bot that a link's list changed. The database write already marked the link "sync wanted"
 * (outbox), so a failure here (Redis down) only delays the sync until the sweeper re-enqueues it: the
 * API answers success either way.
 */
export class SyncNotifier {
  private readonly producer: Producer<typeof QueueName.roleSync>;
  /**
   * One enqueue per link in flight; requests of the link arriving meanwhile share the next one, which
   * starts after they asked (SharedCall). The job is deduplicated per link anyway (one waiting job, its
   * `wanted` rule), so a burst of writes asked Redis the same question once per write batch: the API's
   * single-user writes spent about a fifth of their CPU there (issue 24). Each caller still answers only
   * after a request queued after its own write committed.
   */
  private readonly perLink = new SharedCall((linkId: string, requestId: string | undefined) => this.enqueue(linkId, requestId), { atOnce: true });

  constructor(
    private readonly connection: Redis,
    prefix: string,
    private readonly logger: Logger,
    private readonly timeoutMs = 1_000,
  ) {
    this.producer = new Producer(QueueName.roleSync, connection, prefix);
  }

  /** `requestId`: the API request whose write asks (it travels in the job to the worker's log lines). */
  notify(linkId: string, requestId?: string): Promise<boolean> {
    return this.perLink.get(linkId, requestId);
  }

  private async enqueue(linkId: string, requestId: string | undefined): Promise<boolean> {
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('enqueue timed out')), this.timeoutMs);
      });
      await Promise.race([this.whenReady().then(() => enqueueLinkSync(this.producer, linkId, requestId)), timeout]).finally(() => clearTimeout(timer));
      return true;
    } catch (err) {
      this.logger.warn('sync request not queued; the outbox sweeper will retry', { linkId, requestId, err: (err as Error).message });
      return false;
    }
  }

  /**
   * BullMQ waits for a connection that is not ready instead of failing, and a write must not wait on
   * Redis: a connection still making its first connect (a fresh CLI process) is waited for within the
   * timeout; one that lost Redis (reconnecting) fails at once.
   */
  private whenReady(): Promise<void> {
    const status = this.connection.status;
    if (status === 'ready') return Promise.resolve();
    if (status !== 'connecting' && status !== 'connect' && status !== 'wait') return Promise.reject(new Error(`redis ${status}`));
    if (status === 'wait') void this.connection.connect().catch(() => undefined);
    return new Promise((resolve) => this.connection.once('ready', () => resolve()));
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
