import type { LinkCountsView } from '@rolelink/contracts';
import { limitsFor, type Plan } from './plans';
import { BOT_NOT_IN_GUILD_MESSAGE, LINK_BLOCK_MESSAGES, MEMBERS_INTENT_MESSAGE } from './platform-refusals';
import { isPaused, slotAllowance } from './slots';
import { reportedPending, splitPending } from './sync-split';

/**
 * A link's state, derived in one place from the stored facts (docs/api.md "A link's state"): the dashboard's
 * card and link page, `rolelink link show`, the plugin's GET /users meta, the `link.paused`/`link.resumed`
 * events, the owner's notifications and the worker's gauges all read this, so none tells its own story.
 * One word per meaning, the first that applies in this order:
 * - `disabled`: an admin disabled the link; nothing syncs and the plugin's calls are refused.
 * - `paused`: beyond the plan's integration slots (reason `slot_allowance`).
 * - `blocked`: the platform refuses the bot for the whole link; `reason` says why and the message the fix.
 * - `held`: a large removal waits for the owner (reason `shrink` or `admin_source`).
 * - `awaiting_first_list`: a hand-over link before the plugin's first whole list; nothing is changed yet.
 * - `syncing`: the bot has changes to make and can make them.
 * - `up_to_date`: the role matches the list, as far as any call can make it.
 */
export const LINK_STATES = [
  'disabled',
  'paused',
  'blocked',
  'held',
  'awaiting_first_list',
  'syncing',
  'up_to_date',
] as const;
export type LinkState = (typeof LINK_STATES)[number];

/** Why the bot cannot change a blocked link's role: the guild is out of reach, or a LinkBlockReason. */
export const LINK_BLOCKED_REASONS = [
  'bot_not_in_guild',
  'no_manage_roles',
  'above_bot',
  'managed',
  'unknown_role',
  'mfa_required',
  'refused',
] as const;
export type LinkBlockedReason = (typeof LINK_BLOCKED_REASONS)[number];

export type LinkStateReason = LinkBlockedReason | 'slot_allowance' | 'shrink' | 'admin_source';

/** A problem the bot knows of that does not stop this link's changes (the Server Members intent off). */
export type LinkWarning = { reason: 'members_intent_missing'; message: string };

/** Everything stored that a link's state depends on; gathered by one reader (@rolelink/db/sync `linkStateFacts`). */
export type LinkStateFacts = {
  enabled: boolean;
  plan: Plan;
  paidSlots: number;
  /** 0-based position among the guild's links, oldest first. */
  rank: number;
  memberMode: 'handover' | 'keep';
  firstListAt: Date | null;
  userCount: number;
  /** Members the bot gave the role to and who hold it now, by its applied record. */
  appliedCount: number;
  /** The worker's count of every change still to make. */
  pendingCount: number;
  /** The worker has not caught up with the latest list write. */
  syncBehind: boolean;
  ratePerSec: number | null;
  /** The guild is out of the bot's reach (10004 / 50001 on a guild route). */
  botNotInGuild: boolean;
  /** Why the bot may not change the role (link_sync_state.blocked_reason); null when it may. */
  block: Exclude<LinkBlockedReason, 'bot_not_in_guild'> | null;
  /** Listed users the platform last answered Unknown Member for (shown as null while the member listing is refused). */
  notInServer: number;
  /** Listed users whose account no longer exists (Unknown User). */
  deleted: number;
  /** The unspent hold the owner has to decide on, if any; `replaced` when a newer whole list was written since. */
  hold: { kind: 'shrink' | 'admin_source'; removals: number; confirmed: boolean; replaced: boolean } | null;
  /** The bot application cannot list members (the Server Members intent is off). */
  membersIntentMissing: boolean;
};

/**
 * The counts, one meaning each (docs/api.md "A link's counts"):
 * - `listed`: users on the plugin's list;
 * - `synced`: members who hold the role now, as the bot applied it;
 * - `to_add`, `to_remove`: changes the bot still has to make (a blocked link's stay here until it can);
 * - `held`: removals held for the owner's decision (never part of `to_remove`);
 * - `not_in_server`: listed users not in the server (null while the member listing is refused);
 * - `deleted`: listed users whose account was deleted;
 * - `over_limit`: listed users beyond the plan's synced limit, stored and not synced.
 */
export type LinkCounts = LinkCountsView;

export type LinkStatus = {
  state: LinkState;
  /** Why, for `blocked`, `paused` and `held`; null otherwise. */
  reason: LinkStateReason | null;
  /** What to tell an admin, with the fix; null for `up_to_date` and `syncing`. */
  message: string | null;
  counts: LinkCounts;
  /**
   * The progress bar: `percent` of the reachable target reached, `moving` only while syncing (a blocked,
   * paused, disabled or held link shows no moving bar), `eta_seconds` only while syncing at a known rate.
   */
  progress: { percent: number; moving: boolean; eta_seconds: number | null };
  warnings: LinkWarning[];
};

export const PAUSED_MESSAGE = (position: number, allowance: number): string =>
  `Integration paused: this server has more role links than its plan's integration slots (this link is number ${position}; ${allowance} allowed). Upgrade the server or delete another link; the list is kept and syncing resumes on its own.`;
export const DISABLED_MESSAGE = "Disabled: the plugin's API calls are refused until the link is enabled again.";
export const AWAITING_FIRST_LIST_MESSAGE =
  "Hand over: the role's current members are left alone until the plugin sends its first whole list; they count as the previous list when it does.";
export const HELD_MESSAGES: Record<'shrink' | 'admin_source', string> = {
  shrink:
    "A large removal is held: nothing was changed. The server owner applies it (Apply removals) or the plugin's next list replaces it.",
  admin_source:
    "Removals are held: the role is some members' only Administrator or Manage Server. The server owner applies them (Apply removals).",
};

/** The message of a blocked reason, with its fix. */
export function blockedMessage(reason: LinkBlockedReason): string {
  return reason === 'bot_not_in_guild' ? BOT_NOT_IN_GUILD_MESSAGE : LINK_BLOCK_MESSAGES[reason];
}

/** The one derivation (see LINK_STATES). Pure: the same facts give the same status on every surface. */
export function deriveLinkStatus(f: LinkStateFacts): LinkStatus {
  const limit = limitsFor(f.plan).syncedUsers;
  const desired = Math.min(f.userCount, limit);
  const unreachable = f.notInServer + f.deleted;
  const pending = reportedPending(f, desired, unreachable);
  const split = splitPending(pending, Math.max(0, desired - unreachable), f.appliedCount);
  // A replaced hold is no decision anyone has to make: the plugin's newer list stands in its place.
  const hold = f.hold && !f.hold.replaced ? f.hold : null;
  // A shrink hold changed nothing (its list was refused); an admin-source hold's removals are among the
  // worker's pending ones, counted once, under held.
  const held = hold ? hold.removals : 0;
  const toRemove = hold?.kind === 'admin_source' ? Math.max(0, split.removals - held) : split.removals;
  const counts: LinkCounts = {
    listed: f.userCount,
    synced: f.appliedCount,
    to_add: split.adds,
    to_remove: toRemove,
    held,
    // Who has joined since is known only from the member listing: without it, no number that looks exact.
    not_in_server: f.membersIntentMissing ? null : f.notInServer,
    deleted: f.deleted,
    over_limit: f.userCount - desired,
  };
  const warnings: LinkWarning[] = f.membersIntentMissing
    ? [{ reason: 'members_intent_missing', message: MEMBERS_INTENT_MESSAGE }]
    : [];
  const toDo = counts.to_add + counts.to_remove;
  const done = Math.min(f.appliedCount, Math.max(0, desired - unreachable));
  const percent = toDo === 0 ? 100 : Math.min(99.9, Math.floor((done / (done + toDo)) * 1000) / 10);
  const still = { percent, moving: false, eta_seconds: null };
  const out = (state: LinkState, reason: LinkStateReason | null, message: string | null): LinkStatus => ({
    state,
    reason,
    message,
    counts,
    progress: still,
    warnings,
  });
  if (!f.enabled) return out('disabled', null, DISABLED_MESSAGE);
  if (isPaused(f.rank, f.plan, f.paidSlots))
    return out('paused', 'slot_allowance', PAUSED_MESSAGE(f.rank + 1, slotAllowance(f.plan, f.paidSlots)));
  const blocked: LinkBlockedReason | null = f.botNotInGuild ? 'bot_not_in_guild' : f.block;
  if (blocked) return out('blocked', blocked, `Blocked: ${blockedMessage(blocked)}`);
  if (hold) return out('held', hold.kind, HELD_MESSAGES[hold.kind]);
  if (f.memberMode === 'handover' && f.firstListAt === null)
    return out('awaiting_first_list', null, AWAITING_FIRST_LIST_MESSAGE);
  if (toDo === 0) return out('up_to_date', null, null);
  const eta = f.ratePerSec && f.ratePerSec > 0 ? Math.ceil(toDo / f.ratePerSec) : null;
  return { ...out('syncing', null, null), progress: { percent, moving: true, eta_seconds: eta } };
}
