import type { PoolClient } from 'pg';
import type { API } from '@discordjs/core/http-only';
import { classifyPlatformError, type PlatformFailure } from '@rolelink/platform-client';
import { backOffLink, recheckRemoval, recordMemberChange, recordOutcome, type UserDiff } from '@rolelink/db';
import { auditReason, type ChangeCause, type LinkContext } from './link-context';

export type SliceResult =
  | { kind: 'done'; retryInMs?: number }
  | { kind: 'continue' }
  | { kind: 'yield'; delayMs: number; reason: string };

export type ChangeMetrics = { change(action: 'add' | 'remove', result: string): void };

export type RangeContext = {
  client: PoolClient;
  api: API;
  link: LinkContext;
  cutoff: bigint | null;
  /** Why these calls are made: the audit-log reason and each member's change history say so. */
  cause: ChangeCause;
  /** True once the slice has used its time or change budget. */
  exhausted(): boolean;
  /** Counts one platform call against the slice's budget. */
  spend(): void;
  metrics?: ChangeMetrics;
};

export type RangeOutcome = {
  /** Set when the slice must stop inside this range (the range is scanned again next time). */
  stop?: SliceResult;
  changes: number;
  adds: number;
  /** Calls the platform accepted (a success ends a link's permission back-off). */
  succeeded: number;
  /** Desired users of the range who do not hold the role after it (the rest of the range's desired users do). */
  desiredNotHolding: number;
  nextRetryAt: Date | null;
};

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a < b ? a : b;
}

/**
 * Right before a removal: is the user back on the live list (and inside the synced set)? Also stops the
 * slice if the link was deleted, disabled or changed plan meanwhile (design: sync engine rule 3).
 */
async function recheck(ctx: RangeContext, userId: string): Promise<'remove' | 'keep' | 'link_changed'> {
  const r = await recheckRemoval(ctx.client, ctx.link.id, userId, ctx.cutoff === null ? 0 : ctx.link.syncedLimit);
  if (!r || !r.enabled || r.plan !== ctx.link.plan) return 'link_changed';
  if (r.listed && (ctx.cutoff === null || r.below < ctx.link.syncedLimit)) return 'keep';
  return 'remove';
}

/** A failure that concerns the whole link or token, not the one user: the slice stops. */
async function stopFor(ctx: RangeContext, failure: PlatformFailure): Promise<SliceResult | null> {
  switch (failure.kind) {
    case 'rate_limited':
      return { kind: 'yield', delayMs: failure.retryAfterMs, reason: 'rate_limited' };
    case 'unauthorized':
      return { kind: 'yield', delayMs: 30_000, reason: 'unauthorized' };
    case 'missing_permission':
    case 'unknown_role':
      return { kind: 'yield', delayMs: await backOffLink(ctx.client, ctx.link.id), reason: failure.kind };
    default:
      return null;
  }
}

/** Sends the adds and removes of one range, in user-id order, recording each answer as it comes. */
export async function applyRange(ctx: RangeContext, rows: UserDiff[]): Promise<RangeOutcome> {
  const out: RangeOutcome = { changes: 0, adds: 0, succeeded: 0, desiredNotHolding: 0, nextRetryAt: null };
  const forget: string[] = [];
  const { link, api, client } = ctx;
  // X-Audit-Log-Reason of every role change (@discordjs/rest sends `reason` as that header, URL-encoded).
  const reason = auditReason(link, ctx.cause);
  const history = (userId: string, action: 'add' | 'remove', outcome: string) =>
    recordMemberChange(client, { linkId: link.id, userId, action, outcome, cause: ctx.cause });
  try {
    for (const row of rows) {
      if (row.desired) {
        if (row.outcome === 'applied') {
          await recordOutcome.clearError(client, link.id, row.userId);
          continue;
        }
        if (!row.due) {
          out.desiredNotHolding++;
          if (row.outcome !== 'not_in_guild') out.nextRetryAt = earliest(out.nextRetryAt, row.nextRetryAt);
          continue;
        }
        if (ctx.exhausted()) return { ...out, stop: { kind: 'continue' } };
        ctx.spend();
        try {
          await api.guilds.addRoleToMember(link.guildId, row.userId, link.roleId, { reason });
          await recordOutcome.added(client, link.id, row.userId);
          await history(row.userId, 'add', 'applied');
          out.changes++;
          out.adds++;
          out.succeeded++;
          ctx.metrics?.change('add', 'applied');
        } catch (err) {
          const failure = classifyPlatformError(err);
          if (failure.kind !== 'rate_limited') out.changes++;
          if (failure.kind === 'not_in_guild') {
            await recordOutcome.addFailed(client, link.id, row.userId, 'not_in_guild');
            await history(row.userId, 'add', 'not_in_guild');
            out.desiredNotHolding++;
            ctx.metrics?.change('add', 'not_in_guild');
            continue;
          }
          if (failure.kind === 'missing_permission' || failure.kind === 'unknown_role' || failure.kind === 'failed') {
            const next = await recordOutcome.addFailed(client, link.id, row.userId, failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
            await history(row.userId, 'add', failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
            ctx.metrics?.change('add', failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
            out.nextRetryAt = earliest(out.nextRetryAt, next);
          }
          const stop = await stopFor(ctx, failure);
          if (stop) return { ...out, stop };
          out.desiredNotHolding++;
        }
        continue;
      }

      // Not desired: undo what the platform has, forget what it never had.
      if (row.outcome !== 'applied') {
        forget.push(row.userId);
        continue;
      }
      if (!row.due) {
        out.nextRetryAt = earliest(out.nextRetryAt, row.nextRetryAt);
        continue;
      }
      if (ctx.exhausted()) return { ...out, stop: { kind: 'continue' } };
      const check = await recheck(ctx, row.userId);
      if (check === 'link_changed') return { ...out, stop: { kind: 'continue' } };
      if (check === 'keep') continue;
      ctx.spend();
      try {
        await api.guilds.removeRoleFromMember(link.guildId, row.userId, link.roleId, { reason });
        await recordOutcome.removed(client, link.id, row.userId);
        await history(row.userId, 'remove', 'removed');
        out.changes++;
        out.succeeded++;
        ctx.metrics?.change('remove', 'applied');
      } catch (err) {
        const failure = classifyPlatformError(err);
        if (failure.kind !== 'rate_limited') out.changes++;
        if (failure.kind === 'not_in_guild') {
          // Left the guild: they hold nothing any more.
          await recordOutcome.removed(client, link.id, row.userId);
          await history(row.userId, 'remove', 'not_in_guild');
          ctx.metrics?.change('remove', 'not_in_guild');
          continue;
        }
        if (failure.kind === 'missing_permission' || failure.kind === 'unknown_role' || failure.kind === 'failed') {
          const next = await recordOutcome.removeFailed(client, link.id, row.userId, failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
          await history(row.userId, 'remove', failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
          ctx.metrics?.change('remove', failure.kind === 'missing_permission' ? 'missing_permission' : 'failed');
          out.nextRetryAt = earliest(out.nextRetryAt, next);
        }
        const stop = await stopFor(ctx, failure);
        if (stop) return { ...out, stop };
      }
    }
    return out;
  } finally {
    await recordOutcome.forget(client, link.id, forget);
  }
}
