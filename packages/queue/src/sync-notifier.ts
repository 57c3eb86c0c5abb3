import type { RedisClient } from './connection';
import { QueueName } from '@rolelink/contracts';
import { SharedCall, withDeadline, type Logger } from '@rolelink/runtime';
import { Producer } from './producer';
import { enqueueLinkSync, wakeLinkSync } from './role-sync';

/**
 * Sync requests of one link start at least this far apart. A sync pass takes far longer than this, so the
 * bot sees no difference; a plugin's stream of single-user writes asked for one per write batch, several
 * hundred a second, and those enqueues (and the Redis work and wake-ups they bring) held the API's POST at
 * about half a bare server's throughput; spacing them restored most of it (docs/benchmarks.md,
 * "Same-run limits").
 */
const SPACING_MS = 50;

/**
 * Tells the bot that a link's list changed. The database write already marked the link "sync wanted"
 * (outbox), so a failure here (Redis down) only delays the sync until the sweeper re-enqueues it: the
 * API answers success either way. A single-user write answers without waiting for its request (the
 * outbox has it); a whole-list write, the CLI and the sweepers wait for theirs.
 */
export class SyncNotifier {
  private readonly producer: Producer<typeof QueueName.roleSync>;
  /**
   * One enqueue per link in flight, and one at most every SPACING_MS; requests of the link arriving
   * meanwhile share the next one, which starts after they asked (SharedCall). The job is deduplicated per
   * link anyway (one waiting job, its `wanted` rule), so more enqueues would only ask Redis the same
   * question again. Each notify() resolves only once a request sent after it asked is queued.
   */
  private readonly perLink = new SharedCall(
    (linkId: string, requestId: string | undefined) => this.enqueue(linkId, requestId),
    { atOnce: true, spacingMs: SPACING_MS },
  );
  /** The requests asked for and not yet sent or given up: settled() waits for them. */
  private readonly outstanding = new Set<Promise<boolean>>();

  constructor(
    private readonly connection: RedisClient,
    prefix: string,
    private readonly logger: Logger,
    private readonly timeoutMs = 1_000,
  ) {
    this.producer = new Producer(QueueName.roleSync, connection, prefix);
  }

  /** `requestId`: the API request whose write asks (it travels in the job to the worker's log lines). */
  notify(linkId: string, requestId?: string): Promise<boolean> {
    const asked = this.perLink.get(linkId, requestId);
    if (!this.outstanding.has(asked)) {
      this.outstanding.add(asked);
      void asked.finally(() => this.outstanding.delete(asked));
    }
    return asked;
  }

  /** A sync of the link now, waking its delayed job (wakeLinkSync): a blocking cause was seen cleared. */
  async wake(linkId: string): Promise<boolean> {
    try {
      await this.whenReady();
      await wakeLinkSync(this.producer, linkId);
      return true;
    } catch (err) {
      this.logger.warn('sync wake-up not queued; the link retries after its back-off', {
        linkId,
        err: (err as Error).message,
      });
      return false;
    }
  }

  /** Resolves once every request asked for so far has been queued or given up (close(); tests reading the queue). */
  async settled(): Promise<void> {
    while (this.outstanding.size) await Promise.allSettled([...this.outstanding]);
  }

  private async enqueue(linkId: string, requestId: string | undefined): Promise<boolean> {
    try {
      await withDeadline(
        this.whenReady().then(() => enqueueLinkSync(this.producer, linkId, requestId)),
        this.timeoutMs,
        'enqueue timed out',
      );
      return true;
    } catch (err) {
      this.logger.warn('sync request not queued; the outbox sweeper will retry', {
        linkId,
        requestId,
        err: (err as Error).message,
      });
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
    if (status !== 'connecting' && status !== 'connect' && status !== 'wait')
      return Promise.reject(new Error(`redis ${status}`));
    if (status === 'wait') void this.connection.connect().catch(() => undefined);
    return new Promise((resolve) => this.connection.once('ready', () => resolve()));
  }

  /** Sends what was asked for first: a draining API's last writes get their requests (else the sweeper's). */
  async close(): Promise<void> {
    await this.settled();
    await this.producer.close();
  }
}
