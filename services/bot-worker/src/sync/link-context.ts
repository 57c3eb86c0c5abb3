import type { PoolClient, Pool } from 'pg';
import { isPaused, syncedLimit, type Plan } from '@rolelink/domain';

type Queryable = Pick<Pool | PoolClient, 'query'>;

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
};

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
  const { rows } = await db.query<{
    guild_id: string;
    role_id: string;
    enabled: boolean;
    member_mode: 'handover' | 'keep';
    first_list_at: Date | null;
    user_count: number;
    applied_count: number;
    sync_wanted_seq: string;
    plan: Plan;
    paid_slots: number;
    rank: number;
    plugin_url: string;
  }>(
    `SELECT rl.guild_id::text, rl.role_id::text, rl.enabled, rl.member_mode, rl.first_list_at, rl.user_count,
            rl.applied_count, rl.sync_wanted_seq::text, g.plan, g.paid_slots, rl.plugin_url,
            (SELECT count(*) FROM role_link o WHERE o.guild_id = rl.guild_id AND o.id < rl.id)::int AS rank
       FROM role_link rl JOIN guild g ON g.id = rl.guild_id
      WHERE rl.id = $1`,
    [linkId],
  );
  const r = rows[0];
  if (!r) return null;
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
    syncedLimit: syncedLimit(r.plan),
    pluginHost: hostOf(r.plugin_url),
  };
}

/** Above this synced limit the cutoff is taken from the stored user_count instead of an OFFSET scan. */
const CHEAP_CUTOFF_LIMIT = 1_000_000;

/**
 * The highest user id of the synced set (the lowest `syncedLimit` ids), or null when the whole list is
 * synced. Held users are the ids above it: decided by user-id order, so the set is stable (spec 1, 8.3).
 */
export async function syncedCutoff(db: Queryable, link: Pick<LinkContext, 'id' | 'syncedLimit' | 'userCount'>): Promise<bigint | null> {
  if (link.syncedLimit > CHEAP_CUTOFF_LIMIT && link.userCount <= link.syncedLimit) return null;
  const { rows } = await db.query<{ user_id: string }>(
    'SELECT user_id::text FROM link_user WHERE link_id = $1 ORDER BY user_id OFFSET $2 LIMIT 1',
    [link.id, link.syncedLimit],
  );
  if (!rows[0]) return null;
  // rows[0] is the first held id; the synced set is everything strictly below it.
  return BigInt(rows[0].user_id) - 1n;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
