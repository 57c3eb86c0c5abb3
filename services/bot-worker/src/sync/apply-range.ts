import type { API } from '@discordjs/core/http-only';
import { classifyPlatformError, type PlatformFailure } from '@rolelink/platform-client';
import type { Queryable } from '@rolelink/db/client';
import { recheckRemoval, recordMemberChange, recordOutcome, type UserDiff } from '@rolelink/db/sync';
import { auditReason, hasOverrides, type LinkContext } from './link-context';
import { recordNotInGuildEvent } from '@rolelink/db/events';
import { guildUnavailable, linkManageable, linkRefused } from './refusals';
import { guardRemoval } from './admin-guard';
import type { RangeContext } from './range-context';
import type { SliceResult } from './slice-result';

export type RangeOutcome = {
  /** Set when the slice must stop inside this range (the range is scanned again next time). */
  stop?: SliceResult;
  changes: number;
  adds: number;
  /** Calls the platform accepted (a success ends a link's permission back-off). */
  succeeded: number;
  /**
   * Removals done: accepted (204), or answered 10007 Unknown Member / 10013 Unknown User. Each took a
   * holder out of the synced count: a member who left or deleted their account holds the role no more.
   */
  removes: number;
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
  const slots = ctx.link.listedSlots;
  const r = await recheckRemoval(
    ctx.client,
    ctx.link.id,
    userId,
    ctx.cutoff === null ? 0 : slots,
    hasOverrides(ctx.link),
  );
  if (!r || !r.enabled || r.plan !== ctx.link.plan) return 'link_changed';
  // Admin overrides decide above the list: a "never" member is removed even when listed.
  if (ctx.link.overrides.never.has(userId)) return 'remove';
  if (ctx.link.overrides.always.has(userId)) return 'keep';
  if (r.listed && (ctx.cutoff === null || r.below < slots)) return 'keep';
  return 'remove';
}

/**
 * A failure that concerns the whole guild, link or token, not the one user: the slice stops at once, and
 * the user's record is left as it was (the refusal is not theirs; they are asked again when the link resumes).
 */
async function stopFor(ctx: RangeContext, failure: PlatformFailure): Promise<SliceResult | null> {
  switch (failure.kind) {
    case 'rate_limited':
    case 'limiter_unavailable':
      return { kind: 'yield', delayMs: failure.retryAfterMs, reason: failure.kind };
    case 'unauthorized':
      return { kind: 'yield', delayMs: 30_000, reason: 'unauthorized' };
    case 'guild_unavailable':
      return guildUnavailable(ctx.refusal, failure.code);
    case 'missing_permission':
    case 'unknown_role':
    case 'mfa_required':
      return linkRefused(ctx.refusal, failure.kind);
    default:
      return null;
  }
}

type Refusal = 'failed';

/** What differs between granting and taking the role; everything else about a change is one path. */
type Change = {
  action: 'add' | 'remove';
  call(api: API, link: LinkContext, userId: string, reason: string): Promise<unknown>;
  /** The platform accepted the call: the record, and the outcome the member's history shows. */
  accepted(db: Queryable, linkId: string, userId: string): Promise<void>;
  acceptedAs: 'applied' | 'removed';
  /** Not in the guild: an add waits for them to join (the reconcile sees it); a removal is done, they hold nothing any more. */
  notInGuild(db: Queryable, linkId: string, userId: string): Promise<unknown>;
  /** The platform refused: returns when to retry. */
  refused(db: Queryable, linkId: string, userId: string, error: Refusal): Promise<Date | null>;
  /** 10013: the account is deleted. An add is recorded for good (never retried) and the plugin told; a removal is done. */
  unknownUser(db: Queryable, linkId: string, userId: string): Promise<unknown>;
  /** An add that did not land leaves a desired user without the role; a failed removal leaves nobody short. */
  leavesUserShort: boolean;
};

const ADD: Change = {
  action: 'add',
  call: (api, link, userId, reason) => api.guilds.addRoleToMember(link.guildId, userId, link.roleId, { reason }),
  accepted: (db, linkId, userId) => recordOutcome.added(db, linkId, userId),
  acceptedAs: 'applied',
  // A plugin that asked for it hears of it: at most once per retry of the user (a day, or on joining).
  notInGuild: async (db, linkId, userId) => {
    await recordNotInGuildEvent(db, linkId, userId);
    return recordOutcome.addFailed(db, linkId, userId, 'not_in_guild');
  },
  refused: (db, linkId, userId, error) => recordOutcome.addFailed(db, linkId, userId, error),
  unknownUser: async (db, linkId, userId) => {
    await recordNotInGuildEvent(db, linkId, userId, 'account_deleted');
    await recordOutcome.unknownUser(db, linkId, userId);
  },
  leavesUserShort: true,
};

const REMOVE: Change = {
  action: 'remove',
  call: (api, link, userId, reason) => api.guilds.removeRoleFromMember(link.guildId, userId, link.roleId, { reason }),
  accepted: (db, linkId, userId) => recordOutcome.removed(db, linkId, userId),
  acceptedAs: 'removed',
  notInGuild: (db, linkId, userId) => recordOutcome.removed(db, linkId, userId),
  refused: (db, linkId, userId, error) => recordOutcome.removeFailed(db, linkId, userId, error),
  unknownUser: (db, linkId, userId) => recordOutcome.removed(db, linkId, userId),
  leavesUserShort: false,
};

/**
 * Whether a row needs a platform call at all. Settled here without one: a desired user who holds the
 * role (an old removal error is cleared), an undesired one who never got it (forgotten at the end), a
 * user still in back-off, and a removal the live list no longer wants. 'stop' ends the slice.
 */
async function needsCall(
  ctx: RangeContext,
  row: UserDiff,
  out: RangeOutcome,
  forget: string[],
): Promise<'call' | 'skip' | 'stop' | { stop: SliceResult }> {
  if (row.desired && row.outcome === 'applied') {
    await recordOutcome.clearError(ctx.client, ctx.link.id, row.userId);
    return 'skip';
  }
  if (!row.desired && row.outcome !== 'applied') {
    forget.push(row.userId);
    return 'skip';
  }
  // A deleted account (10013) is permanent: never asked for again (the plugin was told once).
  if (row.outcome === 'unknown_user') {
    out.desiredNotHolding++;
    return 'skip';
  }
  if (!row.due) {
    if (row.desired) out.desiredNotHolding++;
    // A user out of the guild waits for the reconcile, not for a scheduled retry.
    if (!row.desired || row.outcome !== 'not_in_guild') out.nextRetryAt = earliest(out.nextRetryAt, row.nextRetryAt);
    return 'skip';
  }
  if (ctx.exhausted()) return 'stop';
  if (row.desired) return 'call';
  const check = await recheck(ctx, row.userId);
  if (check !== 'remove') return check === 'link_changed' ? 'stop' : 'skip';
  // A removal that would take a member's only Administrator or Manage Server waits for the owner.
  const guard = await guardRemoval(ctx, row.userId);
  return guard === 'remove' ? 'call' : guard === 'held' ? 'skip' : guard;
}

/** Sends the adds and removes of one range, in user-id order, recording each answer as it comes. */
export async function applyRange(ctx: RangeContext, rows: UserDiff[]): Promise<RangeOutcome> {
  const out: RangeOutcome = {
    changes: 0,
    adds: 0,
    succeeded: 0,
    removes: 0,
    desiredNotHolding: 0,
    nextRetryAt: null,
  };
  const forget: string[] = [];
  const { link, api, client } = ctx;
  // X-Audit-Log-Reason of every role change (@discordjs/rest sends `reason` as that header, URL-encoded).
  const reason = auditReason(link, ctx.cause);
  const history = (userId: string, action: 'add' | 'remove', outcome: string) =>
    recordMemberChange(client, { linkId: link.id, userId, action, outcome, cause: ctx.cause });
  try {
    for (const row of rows) {
      const next = await needsCall(ctx, row, out, forget);
      if (next === 'stop') return { ...out, stop: { kind: 'continue' } };
      if (typeof next === 'object') return { ...out, stop: next.stop };
      if (next === 'skip') continue;
      const change = row.desired ? ADD : REMOVE;
      ctx.spend();
      try {
        await change.call(api, link, row.userId, reason);
        await change.accepted(client, link.id, row.userId);
        await history(row.userId, change.action, change.acceptedAs);
        out.changes++;
        if (change === ADD) out.adds++;
        else out.removes++;
        out.succeeded++;
        ctx.metrics?.change(change.action, 'applied');
        if (ctx.refusal.blockPending) {
          ctx.refusal.blockPending = false;
          await linkManageable(ctx.refusal);
        }
      } catch (err) {
        const failure = classifyPlatformError(err);
        if (failure.kind !== 'rate_limited' && failure.kind !== 'limiter_unavailable') out.changes++; // not sent
        if (failure.kind === 'not_in_guild') {
          await change.notInGuild(client, link.id, row.userId);
          await history(row.userId, change.action, 'not_in_guild');
          if (change.leavesUserShort) out.desiredNotHolding++;
          else out.removes++;
          ctx.metrics?.change(change.action, 'not_in_guild');
          continue;
        }
        if (failure.kind === 'unknown_user') {
          await change.unknownUser(client, link.id, row.userId);
          await history(row.userId, change.action, 'unknown_user');
          if (change.leavesUserShort) out.desiredNotHolding++;
          else out.removes++;
          ctx.metrics?.change(change.action, 'unknown_user');
          continue;
        }
        const stop = await stopFor(ctx, failure);
        if (stop) {
          if (
            failure.kind !== 'rate_limited' &&
            failure.kind !== 'limiter_unavailable' &&
            failure.kind !== 'unauthorized'
          )
            ctx.metrics?.change(change.action, failure.kind);
          return { ...out, stop };
        }
        // The user's own retry: a refusal no code above names, the platform's 5xx, or no answer at all.
        if (failure.kind === 'failed' || failure.kind === 'server_error' || failure.kind === 'no_answer') {
          const error: Refusal = 'failed';
          const retryAt = await change.refused(client, link.id, row.userId, error);
          await history(row.userId, change.action, error);
          ctx.metrics?.change(change.action, error);
          out.nextRetryAt = earliest(out.nextRetryAt, retryAt);
        }
        if (change.leavesUserShort) out.desiredNotHolding++;
      }
    }
    return out;
  } finally {
    await recordOutcome.forget(client, link.id, forget);
  }
}
