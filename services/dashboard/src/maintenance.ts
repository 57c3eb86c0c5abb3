import type { Pool } from 'pg';
import { QueueName } from '@rolelink/contracts';
import { startPeriodicJobs, type PeriodicJobs, type RedisClient } from '@rolelink/queue';
import type { DependencyLog, Logger } from '@rolelink/runtime';
import { sweepAuditRetention } from './audit-retention';

export type DashboardMaintenanceOptions = {
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  dependencies?: DependencyLog;
  pool: Pool;
  /** AUDIT_RETENTION_DAYS. */
  auditRetentionDays: number;
  /** RETENTION_SWEEP_EVERY_MS; absent or 0: not (re)scheduled (tests run the sweep themselves). */
  retentionEveryMs?: number;
};

/**
 * The dashboard's periodic work, on the tables admin writes (admin_audit), as jobs of the
 * `dashboard-maintenance` queue on the catalog's schedulers (@rolelink/queue startPeriodicJobs: once per
 * interval across replicas). Not part of readiness: an outage must not take the dashboard out.
 */
export function startDashboardMaintenance(o: DashboardMaintenanceOptions): PeriodicJobs {
  return startPeriodicJobs({
    queue: QueueName.dashboardMaintenance,
    connection: o.connection,
    prefix: o.prefix,
    logger: o.logger,
    dependencies: o.dependencies,
    jobs: {
      'audit-retention': {
        run: () => sweepAuditRetention(o.pool, o.auditRetentionDays, o.logger),
        everyMs: o.retentionEveryMs,
      },
    },
  });
}
