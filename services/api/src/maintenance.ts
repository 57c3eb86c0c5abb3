import type { Pool } from 'pg';
import { QueueName } from '@rolelink/contracts';
import { startPeriodicJobs, type PeriodicJobs, type RedisClient, type SyncNotifier } from '@rolelink/queue';
import type { DependencyLog, Logger } from '@rolelink/runtime';
import type { ExpirySweeper } from './expiry-sweeper';
import { sweepIdempotencyKeys } from './idempotency-sweep';
import { sweepOutbox } from './outbox-sweep';
import { sweepUploads } from './upload-sweep';

export type MaintenanceOptions = {
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  logger: Logger;
  /** The service's one log of Redis's state (one line per change, not per attempt); a new one by default. */
  dependencies?: DependencyLog;
  pool: Pool;
  sync: SyncNotifier;
  expiries: Pick<ExpirySweeper, 'sweepOnce'>;
  /** SWEEP_EVERY_MS and EXPIRY_SWEEP_EVERY_MS; absent: not (re)scheduled (tests run the sweeps themselves). */
  sweepEveryMs?: number;
  expirySweepEveryMs?: number;
};

/**
 * The API's periodic work, one sweep per concern of the tables it owns, as jobs of the `maintenance` queue
 * on the catalog's schedulers (@rolelink/queue startPeriodicJobs: once per interval across replicas):
 * `outbox-sweep` (lost sync requests), `upload-sweep` (upload staging), `idempotency-sweep` (expired
 * keys), each under its own advisory lock, and `expiry-sweep` (memberships whose time has come).
 */
export function startMaintenance(o: MaintenanceOptions): PeriodicJobs {
  return startPeriodicJobs({
    queue: QueueName.maintenance,
    connection: o.connection,
    prefix: o.prefix,
    logger: o.logger,
    dependencies: o.dependencies,
    jobs: {
      'outbox-sweep': { run: () => sweepOutbox(o.pool, o.sync, o.logger), everyMs: o.sweepEveryMs },
      'upload-sweep': { run: () => sweepUploads(o.pool, o.logger), everyMs: o.sweepEveryMs },
      'idempotency-sweep': { run: () => sweepIdempotencyKeys(o.pool, o.logger), everyMs: o.sweepEveryMs },
      'expiry-sweep': { run: () => o.expiries.sweepOnce(), everyMs: o.expirySweepEveryMs },
    },
  });
}
