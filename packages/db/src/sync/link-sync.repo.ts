import type { Plan } from '@rolelink/domain';
import type { Queryable } from '../client/queryable';
import { clearPassCursor, type PassState } from './sync-state.repo';
import { toStored } from '../client/user-id';

// The sync worker's reads and writes of role_link: what a slice needs about its link, and the progress
// (counts, rate, answered outbox sequence) it reports back.

/** The link row a sync slice starts from, with its guild's plan and its slot rank (links of the guild with a smaller id). */
export type SyncLinkRow = {
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
};

export async function findSyncLink(db: Queryable, linkId: string): Promise<SyncLinkRow | null> {
  const { rows } = await db.query<SyncLinkRow>(
    `SELECT rl.guild_id::text, rl.role_id::text, rl.enabled, rl.member_mode, rl.first_list_at, rl.user_count,
            rl.applied_count, rl.sync_wanted_seq::text, g.plan, g.paid_slots, rl.plugin_url,
            (SELECT count(*) FROM role_link o WHERE o.guild_id = rl.guild_id AND o.id < rl.id)::int AS rank
       FROM role_link rl JOIN guild g ON g.id = rl.guild_id
      WHERE rl.id = $1`,
    [linkId],
  );
  return rows[0] ?? null;
}

/**
 * Right before a removal, the live state: the link's enabled flag and plan, whether the user is listed,
 * and how many listed ids lie below theirs (counted up to `limit` only: enough to place them against the
 * synced boundary; `limit` 0 when the whole list is synced). With `overrides` the ids with an override
 * are not counted, as the boundary does not count them (docs/sync-engine.md, "Admin overrides").
 */
export async function recheckRemoval(
  db: Queryable,
  linkId: string,
  userId: string,
  limit: number,
  overrides = false,
): Promise<{ enabled: boolean; plan: string; listed: boolean; below: number } | null> {
  // With admin overrides, listed ids with an override take no listed place (as listedUserAt(…, true)).
  const skip = overrides
    ? ' AND NOT EXISTS (SELECT 1 FROM link_override o WHERE o.link_id = $1 AND o.user_id = link_user.user_id)'
    : '';
  const { rows } = await db.query<{ enabled: boolean; plan: string; listed: boolean; below: number }>(
    `SELECT rl.enabled, g.plan,
            EXISTS (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = ${toStored('$2')}) AS listed,
            (SELECT count(*) FROM (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id < ${toStored('$2')}${skip} LIMIT $3) x)::int AS below
       FROM role_link rl JOIN guild g ON g.id = rl.guild_id WHERE rl.id = $1`,
    [linkId, userId, limit],
  );
  return rows[0] ?? null;
}

export async function writeProgress(
  db: Queryable,
  linkId: string,
  counts: { applied: number; pending: number },
  rate: number | null,
): Promise<void> {
  await db.query(
    `UPDATE role_link SET applied_count = $2, pending_count = $3, sync_rate_per_sec = COALESCE($4, sync_rate_per_sec), last_sync_at = clock_timestamp()
      WHERE id = $1`,
    [linkId, counts.applied, counts.pending, rate],
  );
}

/**
 * The pass reached the end of the list: exact counts, and the outbox marks the sequence it answered as
 * done (never lowering it). The API's sweeper re-enqueues links whose wanted sequence is still ahead.
 */
export async function finishPass(
  db: Queryable,
  linkId: string,
  pass: Pick<PassState, 'passSeq' | 'desiredSeen' | 'appliedSeen'>,
  rate: number | null,
): Promise<void> {
  await db.query(
    `UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2), applied_count = $3, pending_count = $4,
            sync_rate_per_sec = COALESCE($5, sync_rate_per_sec), last_sync_at = clock_timestamp()
      WHERE id = $1`,
    [linkId, pass.passSeq.toString(), pass.appliedSeen, Math.max(0, pass.desiredSeen - pass.appliedSeen), rate],
  );
  await clearPassCursor(db, linkId);
}

/** An inactive link (paused, disabled, awaiting its first list) has nothing to do: its outbox is answered. */
export async function markIdle(db: Queryable, linkId: string, wantedSeq: bigint): Promise<void> {
  await db.query('UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2) WHERE id = $1', [
    linkId,
    wantedSeq.toString(),
  ]);
}

/**
 * Progress after a journal batch, or the part of one a slice finished: the applied count moves by what
 * the calls did (exact counts come back with the next walk), and the outbox answers `seq`. Not called
 * inside a walk: the outbox stays behind until the walk ends, and the walk's counts are exact then.
 *
 * The stored count is not capped at user_count: the list shrinks when the API writes a removal, the
 * holder count when the worker's call lands, and capping in between loses the holders still to remove (a
 * batch of 45 removals from 50 stopped after 40 stored 5, and the last 5 calls then made it 0). Readers
 * show min(applied, synced set); pending is computed capped, as before, and is never less than `left`: the
 * changes of a stopped batch still to make, removals included.
 */
export async function writeJournalProgress(
  db: Queryable,
  linkId: string,
  p: { seq: bigint; adds: number; removes: number; limit: number; left: number },
  overrides = false,
): Promise<void> {
  const args = [linkId, p.seq.toString(), p.adds, p.removes, p.limit, p.left];
  if (overrides) return writeJournalProgressWithOverrides(db, args);
  await db.query(
    `UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2),
            applied_count = LEAST($5, GREATEST(0, applied_count + $3 - $4)),
            pending_count = GREATEST($6, LEAST(user_count, $5) - LEAST(user_count, $5, GREATEST(0, applied_count + $3 - $4))),
            last_sync_at = clock_timestamp()
      WHERE id = $1`,
    args,
  );
}

/**
 * The same on a link with admin overrides (docs/sync-engine.md, "Admin overrides"): measured against the
 * target set, |(list ∖ never) ∪ always| = |always| + min(limit − |always|, listed ids without an
 * override), instead of the list's size, so the figure is as exact as a walk's. One pass over the small
 * override table (an index probe into the list per entry), read in the same statement as user_count.
 * "Always" members hold the role beyond the limit, so the applied count is capped at the larger of the two.
 */
async function writeJournalProgressWithOverrides(db: Queryable, args: unknown[]): Promise<void> {
  // Target and applied as SQL text, read from the row being updated (as the plain form does).
  const target = `(o.always + LEAST(GREATEST(0, $5 - o.always), GREATEST(0, user_count - o.listed)))`;
  const applied = `GREATEST(0, applied_count + $3 - $4)`;
  await db.query(
    `WITH o AS (
       SELECT count(*) FILTER (WHERE kind = 'always')::int AS always,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM link_user lu WHERE lu.link_id = $1 AND lu.user_id = lo.user_id))::int AS listed
         FROM link_override lo WHERE lo.link_id = $1
     )
     UPDATE role_link SET sync_done_seq = GREATEST(sync_done_seq, $2),
            applied_count = LEAST(GREATEST($5, ${target}), ${applied}),
            pending_count = GREATEST($6, ${target} - LEAST(${target}, ${applied})),
            last_sync_at = clock_timestamp()
       FROM o WHERE id = $1`,
    args,
  );
}
