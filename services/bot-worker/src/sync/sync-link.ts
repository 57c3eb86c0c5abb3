import type { Pool, PoolClient } from 'pg';
import type { API } from '@discordjs/core/http-only';
import type { Logger } from '@rolelink/runtime';
import { applyRange, type ChangeMetrics, type SliceResult } from './apply-range';
import { desiredInRange, diffRange, MAX_USER_ID, nextRangeEnd } from './diff';
import { inactiveReason, loadLink, syncedCutoff } from './link-context';
import { abandonPass, advancePass, clearBackoff, countCalls, loadPass, startPass, type PassState } from './pass-state';
import { finishPass, interimCounts, markIdle, passRate, writeProgress } from './progress';
import { countingChanges, newSliceTally, withSliceTally, writeSliceLine, type SliceTally } from './slice-log';

export type { SliceResult } from './apply-range';

export type SyncDeps = {
  db: Pool;
  api: API;
  logger: Logger;
  /** The job working this slice, for its log line. */
  jobId?: string;
  metrics?: ChangeMetrics;
  /** Fairness budget of one job: wall time and platform calls. */
  sliceMs: number;
  sliceChanges: number;
  /** Ids of each stream per diff range (memory per range: at most 2 × span rows, only differences leave PostgreSQL). */
  rangeSpan?: number;
};

/** Namespace of the worker's session advisory locks (one per link): 'RLSY'. */
const LOCK_CLASS = 0x524c5359;
/** A retry further away than this is left to the reconcile rather than scheduled. */
const MAX_SCHEDULED_RETRY_MS = 3_600_000;

function lockKey(linkId: string): number {
  return Number(BigInt(linkId) % 2147483647n);
}

/**
 * One slice of a link's sync: at most one job works a link at a time (a session advisory lock, released
 * by PostgreSQL if the process dies), the pass resumes from its saved cursor, and the slice ends when the
 * pass ends, the budget is spent (re-enqueue: fairness) or the platform says wait (yield).
 */
export async function syncLinkSlice(deps: SyncDeps, linkId: string): Promise<SliceResult> {
  const started = performance.now();
  const tally = newSliceTally();
  let result: SliceResult | undefined;
  try {
    result = await withSliceTally(tally, () => lockedSlice(deps, linkId, tally));
    return result;
  } finally {
    writeSliceLine(deps.logger, { jobId: deps.jobId, linkId }, tally, result, performance.now() - started);
  }
}

async function lockedSlice(deps: SyncDeps, linkId: string, tally: SliceTally): Promise<SliceResult> {
  const client = await deps.db.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_CLASS, lockKey(linkId)]);
    if (!rows[0]?.ok) return { kind: 'yield', delayMs: 1_000, reason: 'link_busy' };
    try {
      return await runSlice(deps, client, linkId, tally);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, lockKey(linkId)]);
    }
  } finally {
    client.release();
  }
}

async function runSlice(deps: SyncDeps, client: PoolClient, linkId: string, tally: SliceTally): Promise<SliceResult> {
  const started = Date.now();
  let calls = 0;
  // Every slice makes progress: at least one platform call (or one whole range) before the budget counts.
  const exhausted = () => calls > 0 && (Date.now() - started >= deps.sliceMs || calls >= deps.sliceChanges);
  let ranges = 0;
  const spend = () => {
    calls++;
  };

  const link = await loadLink(client, linkId);
  if (!link) {
    // Deleted link: its rows are orphans purged elsewhere; the job just completes.
    await client.query('DELETE FROM link_sync_state WHERE link_id = $1', [linkId]);
    tally.skipped = { result: 'deleted' };
    return { kind: 'done' };
  }
  tally.guildId = link.guildId;
  tally.roleId = link.roleId;
  const inactive = inactiveReason(link);
  if (inactive) {
    tally.skipped = { result: 'inactive', reason: inactive };
    await abandonPass(client, linkId).catch(() => undefined);
    await markIdle(client, linkId, link.wantedSeq);
    return { kind: 'done' };
  }

  let pass = await loadPass(client, linkId);
  if (pass.backoffLeftMs > 0) return { kind: 'yield', delayMs: pass.backoffLeftMs, reason: 'link_backoff' };
  if (pass.cursor === null) {
    await startPass(client, linkId, link.wantedSeq, link.appliedCount);
    pass = await loadPass(client, linkId);
  }
  const cutoff = await syncedCutoff(client, link);
  const span = deps.rangeSpan ?? 10_000;
  let cursor = pass.cursor ?? 0n;

  const ctx = { client, api: deps.api, link, cutoff, metrics: countingChanges(tally, deps.metrics), exhausted, spend };
  for (;;) {
    if (ranges > 0 && (exhausted() || Date.now() - started >= deps.sliceMs)) return await pause(client, link, { kind: 'continue' });
    ranges++;
    const to = await nextRangeEnd(client, linkId, cursor, span);
    const rows = await diffRange(client, linkId, cursor, to, cutoff);
    const outcome = await applyRange(ctx, rows);
    if (outcome.succeeded > 0) await clearBackoff(client, linkId).catch(() => undefined);
    if (outcome.stop) {
      await countCalls(client, linkId, outcome.changes, outcome.adds);
      return await pause(client, link, outcome.stop);
    }
    const desired = await desiredInRange(client, linkId, cursor, to, cutoff);
    await advancePass(client, linkId, {
      cursor: to,
      desired,
      applied: Math.max(0, desired - outcome.desiredNotHolding),
      changes: outcome.changes,
      adds: outcome.adds,
      nextRetryAt: outcome.nextRetryAt,
    });
    cursor = to;
    if (to !== MAX_USER_ID) continue;

    pass = await loadPass(client, linkId);
    await finishPass(client, linkId, pass, passRate(pass, Date.now()));
    tally.pass = { calls: pass.changes, adds: pass.adds, duration_ms: pass.passStartedAt && Math.max(0, Date.now() - pass.passStartedAt.getTime()) };
    const fresh = await loadLink(client, linkId);
    if (fresh && !inactiveReason(fresh) && fresh.wantedSeq > pass.passSeq) {
      // The list changed during the pass: start the next pass right away (within the budget).
      await startPass(client, linkId, fresh.wantedSeq, pass.appliedSeen);
      cursor = 0n;
      continue;
    }
    const retryInMs = pass.nextRetryAt ? Math.max(1_000, pass.nextRetryAt.getTime() - Date.now()) : undefined;
    return retryInMs !== undefined && retryInMs <= MAX_SCHEDULED_RETRY_MS ? { kind: 'done', retryInMs } : { kind: 'done' };
  }
}

/** Leaving mid-pass: interim progress so GET /users and `rolelink link show` move during a long sync. */
async function pause(client: PoolClient, link: NonNullable<Awaited<ReturnType<typeof loadLink>>>, result: SliceResult): Promise<SliceResult> {
  const pass: PassState = await loadPass(client, link.id);
  await writeProgress(client, link.id, interimCounts(link, pass), passRate(pass, Date.now()));
  return result;
}
