import type { Pool, PoolClient } from 'pg';
import type { API } from '@discordjs/core/http-only';
import type { Logger } from '@rolelink/runtime';
import { applyRange } from './apply-range';
import type { ChangeMetrics, SliceResult } from './slice-result';
import { MAX_USER_ID, tryLockSyncLink, unlockSyncLink } from '@rolelink/db/client';
import { pendingStrip } from '@rolelink/db/links';
import {
  abandonPass,
  advancePass,
  clearBackoff,
  countCalls,
  countDiff,
  deleteSyncState,
  desiredInRange,
  diffRange,
  finishPass,
  loadPass,
  markIdle,
  nextRangeEnd,
  nextRetryInMs,
  noteLinkChanged,
  recordJournalApplied,
  startPass,
  writeProgress,
  type PassState,
} from '@rolelink/db/sync';
import { stripSlice } from './strip-roles';
import { guildGate, linkGate } from './refusals';
import { consumeJournal } from './journal-batch';
import { hasOverrides, inactiveReason, loadLink, syncedCutoff, type LinkContext } from './link-context';
import { interimCounts, passRate } from './progress';
import { countingChanges, newSliceTally, withSliceTally, writeSliceLine, type SliceTally } from './slice-log';
import { recordFirstSyncCompleted } from '@rolelink/db/events';

export type SyncDeps = {
  db: Pool;
  /**
   * Where a slice runs: its link's lock is a session advisory lock, held across the slice's statements,
   * so the slice keeps one session of PostgreSQL (not a transaction pooler's). Unset, `db`.
   */
  sessionDb?: Pool;
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
  /** Enqueues a link's sync now: the other links of a guild the bot is back in (refusals.ts). */
  wake?: (linkId: string) => Promise<unknown>;
};

/** A retry further away than this is left to the reconcile rather than scheduled. */
const MAX_SCHEDULED_RETRY_MS = 3_600_000;

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
    // The bot changed the role: the drift poll reads this guild's log ahead of quiet guilds' for a while
    // (docs/sync-engine.md "Which guild next"). A failure here only costs that priority, never the slice.
    if (tally.guildId && tally.adds + tally.removes > 0) {
      await noteLinkChanged(deps.db, tally.guildId).catch((err: unknown) =>
        deps.logger.warn('drift priority not recorded', {
          linkId,
          err: err instanceof Error ? err.message : String(err),
        }),
      );
    }
    return result;
  } finally {
    writeSliceLine(deps.logger, { jobId: deps.jobId, linkId }, tally, result, performance.now() - started);
  }
}

async function lockedSlice(deps: SyncDeps, linkId: string, tally: SliceTally): Promise<SliceResult> {
  const client = await (deps.sessionDb ?? deps.db).connect();
  try {
    if (!(await tryLockSyncLink(client, linkId))) return { kind: 'yield', delayMs: 1_000, reason: 'link_busy' };
    try {
      return await runSlice(deps, client, linkId, tally);
    } finally {
      await unlockSyncLink(client, linkId);
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
    // Deleted with --strip-roles: remove what the bot granted before the purge takes the records.
    const strip = await pendingStrip(client, linkId);
    if (strip) {
      tally.guildId = strip.guildId;
      tally.roleId = strip.roleId;
      return await stripSlice({ client, api: deps.api, exhausted, spend }, { id: linkId, ...strip });
    }
    // Deleted link: its rows are orphans purged elsewhere; the job just completes.
    await deleteSyncState(client, linkId);
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

  // The platform's refusals for the whole guild or link (refusals.ts): no per-user call while they hold.
  const refusal = {
    db: deps.db,
    client,
    api: deps.api,
    link,
    logger: deps.logger,
    wake: deps.wake,
    blockPending: false,
  };
  const outage = await guildGate(refusal);
  if (outage) {
    tally.skipped = { result: 'inactive', reason: 'guild_unavailable' };
    return outage;
  }
  let pass = await loadPass(client, linkId);
  if (pass.backoffLeftMs > 0) return { kind: 'yield', delayMs: pass.backoffLeftMs, reason: 'link_backoff' };
  const blocked = await linkGate(refusal);
  if (blocked === 'until_success') refusal.blockPending = true;
  else if (blocked) return blocked;
  const ctx = {
    client,
    api: deps.api,
    link,
    metrics: countingChanges(tally, deps.metrics),
    exhausted,
    spend,
    cause: 'list change' as const,
    refusal,
  };

  if (pass.cursor !== null && pass.appliedLimit !== link.syncedLimit) pass = await beginWalk(client, link); // plan changed mid-walk
  if (pass.cursor === null) {
    // No walk under way: the journal says what changed since the last applied sequence.
    const floor = pass.journalSeq;
    const boundaryMoved =
      pass.appliedLimit !== link.syncedLimit && link.userCount > Math.min(pass.appliedLimit ?? 0, link.syncedLimit);
    if (floor !== null && !boundaryMoved) {
      const j = await consumeJournal(
        { ...ctx, appliedCutoff: pass.appliedCutoff, walking: false },
        floor,
        link.wantedSeq,
      );
      // No walk under way: the batch wrote its own counts. pause() would write a walk's interim counts
      // from the last finished walk's state, wrong once the journal has added or removed since.
      if (j.kind === 'stop') return j.result;
      if (j.kind === 'drained') return await idle(client, link, j.seq);
    }
    pass = await beginWalk(client, link); // first sync, moved boundary, or a change the journal cannot describe
  } else if (pass.appliedCutoff === null && link.userCount <= link.syncedLimit) {
    // Fresh changes go ahead of the walk's backlog (design rule 7): while the whole list is synced, a
    // journaled change is exact on its own, so it need not wait for the walk to reach its id.
    const j = await consumeJournal(
      { ...ctx, appliedCutoff: null, walking: true },
      maxSeq(pass.journalSeq, pass.passSeq),
      link.wantedSeq,
    );
    if (j.kind === 'stop') return await pause(client, link, j.result);
  }

  const cutoff = pass.appliedCutoff;
  const span = deps.rangeSpan ?? 10_000;
  let cursor = pass.cursor ?? 0n;
  const rangeCtx = { ...ctx, cutoff, cause: 'full sync' as const };
  for (;;) {
    if (ranges > 0 && (exhausted() || Date.now() - started >= deps.sliceMs))
      return await pause(client, link, { kind: 'continue' });
    ranges++;
    const to = await nextRangeEnd(client, linkId, cursor, span);
    const rows = await diffRange(client, linkId, cursor, to, cutoff, hasOverrides(link));
    const outcome = await applyRange(rangeCtx, rows);
    if (outcome.succeeded > 0) await clearBackoff(client, linkId).catch(() => undefined);
    if (outcome.stop) {
      await countCalls(client, linkId, outcome.changes, outcome.adds);
      return await pause(client, link, outcome.stop);
    }
    const desired = await desiredInRange(client, linkId, cursor, to, cutoff, hasOverrides(link));
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
    await recordFirstSyncCompleted(client, linkId, pass.appliedSeen);
    await finishPass(client, linkId, pass, passRate(pass, Date.now()));
    // Everything journaled up to the walk's sequence is on the platform now: compacted.
    await recordJournalApplied(client, linkId, { seq: pass.passSeq, cutoff, limit: link.syncedLimit });
    tally.pass = {
      calls: pass.changes,
      adds: pass.adds,
      duration_ms: pass.passStartedAt && Math.max(0, Date.now() - pass.passStartedAt.getTime()),
    };
    const fresh = await loadLink(client, linkId);
    // Changes journaled during the walk are the next slice's (the journal, not another walk).
    if (fresh && !inactiveReason(fresh) && fresh.wantedSeq > pass.passSeq) return { kind: 'continue' };
    const retryInMs = pass.nextRetryAt ? Math.max(1_000, pass.nextRetryAt.getTime() - Date.now()) : undefined;
    return retryInMs !== undefined && retryInMs <= MAX_SCHEDULED_RETRY_MS
      ? { kind: 'done', retryInMs }
      : { kind: 'done' };
  }
}

const maxSeq = (a: bigint | null, b: bigint) => (a !== null && a > b ? a : b);

/**
 * Starts a full walk answering the link's current sequence, with the boundary that holds now. Every
 * change it has to make (removals too) is counted first and shown at once: a walk of thousands of
 * removals must not read as "up to date"; so are the members who hold the role already.
 */
async function beginWalk(client: PoolClient, link: LinkContext): Promise<PassState> {
  const cutoff = await syncedCutoff(client, link);
  const { changes, holding } = await countDiff(client, link.id, cutoff, hasOverrides(link));
  // The walk's base is who of the synced set holds the role now, measured, not the last walk's figure: a
  // hand-over's first walk starts from the members who held the role before the link, and a
  // walk restarted by a plan change from what the calls so far did.
  await startPass(client, link.id, link.wantedSeq, holding, { limit: link.syncedLimit, cutoff }, changes);
  const started = await loadPass(client, link.id);
  await writeProgress(client, link.id, interimCounts(link, started), null);
  return started;
}

/** Nothing journaled is left: the outbox answers what was consumed; a user in back-off schedules its retry. */
async function idle(client: PoolClient, link: LinkContext, seq: bigint): Promise<SliceResult> {
  await markIdle(client, link.id, seq);
  const retryInMs = await nextRetryInMs(client, link.id);
  return retryInMs !== null && retryInMs <= MAX_SCHEDULED_RETRY_MS
    ? { kind: 'done', retryInMs: Math.max(1_000, retryInMs) }
    : { kind: 'done' };
}

/** Leaving mid-pass: interim progress so GET /users and `rolelink link show` move during a long sync. */
async function pause(client: PoolClient, link: LinkContext, result: SliceResult): Promise<SliceResult> {
  const pass: PassState = await loadPass(client, link.id);
  await writeProgress(client, link.id, interimCounts(link, pass), passRate(pass, Date.now()));
  return result;
}
