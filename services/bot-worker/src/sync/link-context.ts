import { isPaused, syncedLimit, type Plan } from '@rolelink/domain';
import type { Queryable } from '@rolelink/db/client';
import { findSyncLink, listedUserAt } from '@rolelink/db/sync';
import { overrideIds } from '@rolelink/db/overrides';

export type LinkContext = {
  id: string;
  guildId: string;
  roleId: string;
  plan: Plan;
  enabled: boolean;
  paused: boolean;
  /** Hand-over link that has not received its first full list yet: nothing may change. */
  awaitingFirstList: boolean;
  userCount: number;
  appliedCount: number;
  wantedSeq: bigint;
  syncedLimit: number;
  /** Host of the plugin that keeps the list: named in the platform's audit log. */
  pluginHost: string;
  /** Admin overrides (docs/sync-engine.md, "Admin overrides"): read once per slice, at most 1,000 ids each. */
  overrides: { always: ReadonlySet<string>; never: ReadonlySet<string> };
  /** Places of the synced set left to listed users: the synced limit less the "always" members (never below 0). */
  listedSlots: number;
};

/** Whether the link has any override: the diff queries take the override-aware form only then. */
export const hasOverrides = (link: Pick<LinkContext, 'overrides'>): boolean =>
  link.overrides.always.size + link.overrides.never.size > 0;

/** Why a role moved, as moderators read it in the guild's audit log (X-Audit-Log-Reason, ≤ 512 chars). */
export type ChangeCause = 'list change' | 'full sync';

export function auditReason(link: Pick<LinkContext, 'pluginHost'>, cause: ChangeCause): string {
  return `Role link: ${link.pluginHost} list (${cause})`.slice(0, 512);
}

/** Why a link syncs nothing right now (design: sync engine rule 1), or null when it syncs. */
export function inactiveReason(link: LinkContext): 'disabled' | 'paused' | 'awaiting_first_list' | null {
  if (!link.enabled) return 'disabled';
  if (link.paused) return 'paused';
  if (link.awaitingFirstList) return 'awaiting_first_list';
  return null;
}

/** The link with its guild's plan and its slot rank (links of the guild with a smaller id). */
export async function loadLink(db: Queryable, linkId: string): Promise<LinkContext | null> {
  const r = await findSyncLink(db, linkId);
  if (!r) return null;
  const o = await overrideIds(db, linkId);
  const limit = syncedLimit(r.plan);
  return {
    id: linkId,
    guildId: r.guild_id,
    roleId: r.role_id,
    plan: r.plan,
    enabled: r.enabled,
    paused: isPaused(r.rank, r.plan, r.paid_slots),
    awaitingFirstList: r.member_mode === 'handover' && r.first_list_at === null,
    userCount: r.user_count,
    appliedCount: r.applied_count,
    wantedSeq: BigInt(r.sync_wanted_seq),
    syncedLimit: limit,
    pluginHost: hostOf(r.plugin_url),
    overrides: { always: new Set(o.always), never: new Set(o.never) },
    listedSlots: Math.max(0, limit - o.always.length),
  };
}

/** Above this synced limit the cutoff is taken from the stored user_count instead of an OFFSET scan. */
const CHEAP_CUTOFF_LIMIT = 1_000_000;

/**
 * The highest user id of the synced set (the lowest `syncedLimit` ids), or null when the whole list is
 * synced. Held users are the ids above it: decided by user-id order, so the set is stable (spec 1, 8.3).
 */
export async function syncedCutoff(
  db: Queryable,
  link: Pick<LinkContext, 'id' | 'syncedLimit' | 'userCount' | 'overrides' | 'listedSlots'>,
): Promise<bigint | null> {
  // With overrides, "always" members take their slots first and listed ids with an override are not
  // counted for the boundary ("never" frees its place for the next lowest listed id).
  const overrides = hasOverrides(link);
  const slots = overrides ? link.listedSlots : link.syncedLimit;
  if (link.syncedLimit > CHEAP_CUTOFF_LIMIT && link.userCount <= slots) return null;
  const firstHeld = await listedUserAt(db, link.id, slots, overrides);
  // The synced set is everything strictly below the first held id.
  return firstHeld === null ? null : firstHeld - 1n;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
