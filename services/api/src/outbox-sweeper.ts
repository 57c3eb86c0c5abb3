import type { Pool } from 'pg';
import { purgeAudit } from '@rolelink/db/audit';
import { pruneEvents } from '@rolelink/db/events';
import { purgeDeletedLinks } from '@rolelink/db/links';
import { collectIdempotencyKeys, collectUploadGarbage } from '@rolelink/db/list';
import { purgeNotifications } from '@rolelink/db/notifications';
import { tryLockSweep, unlockSweep } from '@rolelink/db/client';
import { linksWantingSync } from '@rolelink/db/sync';
import type { Logger } from '@rolelink/runtime';
import type { SyncNotifier } from '@rolelink/queue';

/** Marks younger than this are still on the queue's fast path. */
const GRACE_MS = 10_000;

/**
 * Re-enqueues links marked "sync wanted" whose request may have been lost (Redis was down when they were
 * written), garbage-collects closed or expired upload staging, expired idempotency keys, and audit entries,
 * notifications and plugin events past their retention (every retention of the service, here), and purges
 * the rows of deleted links. Run by the `outbox-sweep` job (maintenance.ts). Deduplicated enqueueing makes a
 * repeat harmless; the advisory lock keeps replicas from doing the same sweep at once.
 */
export class OutboxSweeper {
  private running: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly sync: SyncNotifier,
    private readonly logger: Logger,
    /** Admin audit entries older than this many days are deleted (AUDIT_RETENTION_DAYS). */
    private readonly auditRetentionDays = 365,
    /** Delivered notifications older than this many days are deleted (NOTIFICATION_RETENTION_DAYS). */
    private readonly notificationRetentionDays = 90,
    /** Finished plugin events older than this many days are deleted (EVENT_RETENTION_DAYS). */
    private readonly eventRetentionDays = 14,
  ) {}

  sweepOnce(graceMs = GRACE_MS): Promise<void> {
    this.running ??= this.sweep(graceMs).finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(graceMs: number): Promise<void> {
    const client = await this.pool.connect().catch(() => null);
    if (!client) return;
    try {
      if (!(await tryLockSweep(client))) return;
      try {
        const ids = await linksWantingSync(client, graceMs);
        let queued = 0;
        for (const id of ids) if (await this.sync.notify(id)) queued++;
        if (ids.length) this.logger.info('outbox sweep', { wanting: ids.length, queued });
        const staged = await collectUploadGarbage(client);
        if (staged) this.logger.info('upload staging collected', { rows: staged });
        const purged = await purgeDeletedLinks(client);
        if (purged) this.logger.info('deleted links purged', { rows: purged });
        const keys = await collectIdempotencyKeys(client);
        if (keys) this.logger.info('expired idempotency keys collected', { rows: keys });
        const audit = await purgeAudit(client, this.auditRetentionDays);
        if (audit) this.logger.info('audit entries past retention deleted', { rows: audit });
        const notifications = await purgeNotifications(client, this.notificationRetentionDays);
        if (notifications) this.logger.info('notifications past retention deleted', { rows: notifications });
        const events = await pruneEvents(client, this.eventRetentionDays);
        if (events) this.logger.info('plugin events past retention deleted', { rows: events });
      } finally {
        await unlockSweep(client);
      }
    } catch (err) {
      this.logger.warn('outbox sweep failed', { err: (err as Error).message });
    } finally {
      client.release();
    }
  }

  /** Waits for a sweep in progress (shutdown). */
  async stop(): Promise<void> {
    await this.running;
  }
}
