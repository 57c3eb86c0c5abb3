import type { Job } from 'bullmq';
import type { QueueName } from '@rolelink/contracts';
import type { JobHandlers } from '@rolelink/queue';
import type { Logger } from '@rolelink/runtime';
import { runReconcile } from '../reconcile/reconcile';
import { sweepLinkPurge } from '../sync/link-purge-sweep';
import { syncLinkSlice, type SyncDeps } from '../sync/sync-link';
import { sharedRepairDeps } from '../repair-deps';
import type { BotWorkerOptions } from '../worker-options';
import type { FollowUps } from './follow-up';

/**
 * The role-sync jobs: `sync` works one slice of a link's pass, `reconcile` one budget of the drift
 * repair, `link-purge` deletes the rows of deleted links whose roles are stripped. Each answers its
 * result (the job's return value, and for `sync` and `reconcile` the timing's outcome).
 */
export function roleSyncHandlers(o: BotWorkerOptions, next: FollowUps): JobHandlers<typeof QueueName.roleSync> {
  const changes = o.metrics?.roleChanges();
  const metrics: SyncDeps['metrics'] = changes && { change: (action, result) => changes.inc({ action, result }) };
  const repair = sharedRepairDeps(o);
  return {
    async sync({ linkId, requestId }, job) {
      // Every line this slice writes names the API request that queued the job, when one did.
      const logger = requestId === undefined ? o.logger : o.logger.child({ requestId });
      const deps: SyncDeps = {
        db: o.db,
        sessionDb: o.sessionDb,
        api: o.api,
        logger,
        jobId: job.id,
        sliceMs: o.sliceMs,
        sliceChanges: o.sliceChanges,
        rangeSpan: o.rangeSpan,
        metrics,
        wake: next.syncNow,
      };
      const result = await syncLinkSlice(deps, linkId);
      await next.afterSlice(linkId, result, requestId);
      return result.kind;
    },
    async reconcile(_data, job) {
      const result = await runReconcile({
        ...repair,
        jobId: job.id,
        budgetMs: Math.max(o.sliceMs, 10_000),
        enqueueSync: next.syncNow,
      });
      await next.afterReconcile(result);
      return result.kind;
    },
    'link-purge': async () => ({ rows: await sweepLinkPurge(o.sessionDb ?? o.db, o.logger) }),
  };
}

/** A job name this release does not know (an older or newer release left it): logged and dropped. */
export function ignoreUnknownJob(logger: Logger): (job: Job) => Promise<string> {
  return (job) => {
    logger.warn('unknown role-sync job ignored', { jobId: job.id, name: job.name });
    return Promise.resolve('ignored');
  };
}
