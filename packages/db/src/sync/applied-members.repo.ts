import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

/** What the sync worker must know about one user: desired state against its applied record. */
export type UserDiff = {
  userId: string;
  /** Listed and inside the synced set (id ≤ cutoff, or no cutoff). */
  desired: boolean;
  outcome: string | null;
  /** A recorded back-off has passed (or there is none). */
  due: boolean;
  hasError: boolean;
  nextRetryAt: Date | null;
};

/** A diff query's row, as both diffs (by users here, by range in sync-diff.repo.ts) select it. */
export type UserDiffRow = {
  user_id: string;
  desired: boolean;
  outcome: string | null;
  due: boolean;
  has_error: boolean;
  next_retry_at: Date | null;
};

export const toUserDiff = (r: UserDiffRow): UserDiff => ({
  userId: r.user_id,
  desired: r.desired,
  outcome: r.outcome,
  due: r.due,
  hasError: r.has_error,
  nextRetryAt: r.next_retry_at,
});

/**
 * The differences for a given set of users (the journal's changed users, due retries), in user-id
 * order: one index probe into the list and one into the applied record per user, whatever the list's
 * size. Same rule as the range diff of a walk: only users who need something come back.
 */
export async function diffUsers(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  cutoff: bigint | null,
  overrides = false,
): Promise<UserDiff[]> {
  if (!userIds.length) return [];
  const listed = `EXISTS (SELECT 1 FROM link_user d WHERE d.link_id = $1 AND d.user_id = x.user_id)
                                    AND ($3::numeric IS NULL OR x.user_id <= ${toStored('$3')})`;
  // With admin overrides (docs/sync-engine.md, "Admin overrides"): "always" is desired, "never" is not,
  // whatever the list and the boundary say; one more index probe per user, only on links that have any.
  const desired = overrides
    ? `CASE (SELECT o.kind FROM link_override o WHERE o.link_id = $1 AND o.user_id = x.user_id) WHEN 'always' THEN true WHEN 'never' THEN false ELSE ${listed} END`
    : listed;
  const { rows } = await db.query<UserDiffRow>({
    name: overrides ? 'rolelink.diff-users-overrides' : 'rolelink.diff-users',
    text: `SELECT ${fromStored('x.user_id')} AS user_id, s.desired, a.outcome,
              (a.next_retry_at IS NULL OR a.next_retry_at <= localtimestamp(3)) AS due,
              a.last_error IS NOT NULL AS has_error, a.next_retry_at
         FROM (SELECT ${toStored('i')} AS user_id FROM unnest($2::numeric[]) i) x
         LEFT JOIN applied_member a ON a.link_id = $1 AND a.user_id = x.user_id
         CROSS JOIN LATERAL (SELECT ${desired} AS desired) s
        WHERE (NOT s.desired AND a.outcome IS NOT NULL AND a.outcome <> 'removed')
           OR (s.desired AND (a.outcome IS NULL OR a.outcome <> 'applied' OR a.last_error IS NOT NULL))
        ORDER BY x.user_id`,
    values: [linkId, userIds, cutoff === null ? null : cutoff.toString()],
  });
  return rows.map(toUserDiff);
}

/** Users whose back-off has passed (partial index applied_member_retry_idx): retried with the next journal batch. */
export async function dueRetries(db: Queryable, linkId: string, limit = 1000): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM applied_member WHERE link_id = $1 AND next_retry_at IS NOT NULL AND next_retry_at <= localtimestamp(3)
      ORDER BY next_retry_at LIMIT $2`,
    [linkId, limit],
  );
  return rows.map((r) => r.user_id);
}

/** Milliseconds until the link's earliest back-off ends (null: nobody waits), per PostgreSQL's clock. */
export async function nextRetryInMs(db: Queryable, linkId: string): Promise<number | null> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM (min(next_retry_at) - localtimestamp(3))) * 1000)::float8 AS ms
       FROM applied_member WHERE link_id = $1 AND next_retry_at IS NOT NULL`,
    [linkId],
  );
  return rows[0]?.ms ?? null;
}

// A strip's rows: holders whose role this link's own add call gave (granted), never those found holding it
// (at creation, by the reconcile, from an earlier link). All three read applied_member_granted_idx.
const GRANTED = `outcome = 'applied' AND granted`;

/** The next users after `after` this link granted the role to (a strip's page, in user-id order). */
export async function grantedHolders(db: Queryable, linkId: string, after: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM applied_member WHERE link_id = $1 AND user_id > ${toStored('$2')} AND ${GRANTED} ORDER BY applied_member.user_id LIMIT $3`,
    [linkId, after, limit],
  );
  return rows.map((r) => r.user_id);
}

/** How many members a strip would take the role from now (an index-only count). */
export async function grantedCount(db: Queryable, linkId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM applied_member WHERE link_id = $1 AND ${GRANTED}`,
    [linkId],
  );
  return rows[0]!.n;
}

/** Which of these users a strip would take the role from. */
export async function grantedAmong(db: Queryable, linkId: string, userIds: readonly string[]): Promise<string[]> {
  if (!userIds.length) return [];
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM applied_member
      WHERE link_id = $1 AND user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i) AND ${GRANTED} ORDER BY applied_member.user_id`,
    [linkId, userIds],
  );
  return rows.map((r) => r.user_id);
}
