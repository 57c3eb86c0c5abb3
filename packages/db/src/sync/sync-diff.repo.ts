import { toUserDiff, type UserDiff, type UserDiffRow } from './applied-members.repo';
import type { Queryable } from '../client/queryable';

// The sync walk's reads: ranges of the list (link_user) against the applied record (applied_member).

import { fromStored, MAX_USER_ID, toStored } from '../client/user-id';

/**
 * The desired set of (from, to] when the link has admin overrides (link_override; docs/sync-engine.md,
 * "Admin overrides"): listed ids up to `desiredTo` that are not "never", and every "always" id of the
 * range whatever the list or the boundary says. Without overrides the plain list range is used, so a
 * link without them runs exactly the queries it ran before. `$1` is the link id.
 */
function desiredSql(overrides: boolean, from: string, desiredTo: string, to: string): string {
  const listed = `SELECT user_id FROM link_user lu WHERE link_id = $1 AND user_id > ${toStored(from)} AND user_id <= ${toStored(desiredTo)}`;
  if (!overrides) return listed;
  return `${listed} AND NOT EXISTS (SELECT 1 FROM link_override o WHERE o.link_id = $1 AND o.user_id = lu.user_id AND o.kind = 'never')
          UNION SELECT user_id FROM link_override WHERE link_id = $1 AND kind = 'always' AND user_id > ${toStored(from)} AND user_id <= ${toStored(to)}`;
}

/**
 * Upper end of the next range after `cursor`: the `span`-th next id of either ordered stream (list or
 * applied record), whichever comes first, so a range never holds more than 2 × span ids of each.
 * Both are index-only range scans with OFFSET; nothing leaves PostgreSQL but one id.
 */
export async function nextRangeEnd(db: Queryable, linkId: string, cursor: bigint, span: number): Promise<bigint> {
  const { rows } = await db.query<{ d: string | null; a: string | null }>(
    `SELECT ${fromStored(`(SELECT user_id FROM link_user WHERE link_id = $1 AND user_id > ${toStored('$2')} ORDER BY user_id OFFSET $3 LIMIT 1)`)} AS d,
            ${fromStored(`(SELECT user_id FROM applied_member WHERE link_id = $1 AND user_id > ${toStored('$2')} ORDER BY user_id OFFSET $3 LIMIT 1)`)} AS a`,
    [linkId, cursor.toString(), span - 1],
  );
  const r = rows[0];
  const ends = [r?.d, r?.a].filter((v): v is string => v != null).map(BigInt);
  return ends.length ? ends.reduce((x, y) => (x < y ? x : y)) : MAX_USER_ID;
}

/**
 * The differences between desired state and the applied record in (from, to], in user-id order: a
 * merge full join of two index range scans in PostgreSQL, returning only rows that need something.
 */
export async function diffRange(
  db: Queryable,
  linkId: string,
  from: bigint,
  to: bigint,
  cutoff: bigint | null,
  overrides = false,
): Promise<UserDiff[]> {
  const desiredTo = cutoff !== null && cutoff < to ? cutoff : to;
  const { rows } = await db.query<UserDiffRow>(
    `SELECT ${fromStored('coalesce(d.user_id, a.user_id)')} AS user_id,
            d.user_id IS NOT NULL AS desired,
            a.outcome,
            (a.next_retry_at IS NULL OR a.next_retry_at <= localtimestamp(3)) AS due,
            a.last_error IS NOT NULL AS has_error,
            a.next_retry_at
       FROM (${desiredSql(overrides, '$2', '$4', '$3')}) d
       FULL JOIN (SELECT user_id, outcome, next_retry_at, last_error FROM applied_member
                   WHERE link_id = $1 AND user_id > ${toStored('$2')} AND user_id <= ${toStored('$3')}) a ON a.user_id = d.user_id
      WHERE (d.user_id IS NULL AND a.outcome <> 'removed')
         OR (d.user_id IS NOT NULL AND (a.user_id IS NULL OR a.outcome <> 'applied' OR a.last_error IS NOT NULL))
      ORDER BY coalesce(d.user_id, a.user_id)`,
    [linkId, from.toString(), to.toString(), desiredTo.toString()],
  );
  return rows.map(toUserDiff);
}

/**
 * What a walk from scratch faces now, in one full join of the two indexes (run once per walk, when it
 * starts; a walk reads the whole list anyway):
 * - `changes`: every change it would make, additions and removals (diffRange's rows over the whole
 *   list, counted), so progress and ETA count removals as well as additions;
 * - `holding`: users of the synced set who hold the role already, so "synced" counts them from the
 *   walk's start: after a hand-over, the members who held the role before the link.
 */
export async function countDiff(
  db: Queryable,
  linkId: string,
  cutoff: bigint | null,
  overrides = false,
): Promise<{ changes: number; holding: number }> {
  const desiredTo = cutoff ?? MAX_USER_ID;
  const { rows } = await db.query<{ changes: number; holding: number }>(
    `SELECT count(*) FILTER (WHERE (d.user_id IS NULL AND a.outcome <> 'removed')
                                OR (d.user_id IS NOT NULL AND (a.user_id IS NULL OR a.outcome <> 'applied' OR a.last_error IS NOT NULL)))::int AS changes,
            count(*) FILTER (WHERE d.user_id IS NOT NULL AND a.outcome = 'applied')::int AS holding
       FROM (${overrides ? desiredSql(true, "'0'", '$2', '$3') : `SELECT user_id FROM link_user WHERE link_id = $1 AND user_id <= ${toStored('$2')}`}) d
       FULL JOIN (SELECT user_id, outcome, last_error FROM applied_member WHERE link_id = $1) a ON a.user_id = d.user_id`,
    overrides ? [linkId, desiredTo.toString(), MAX_USER_ID.toString()] : [linkId, desiredTo.toString()],
  );
  return rows[0] ?? { changes: 0, holding: 0 };
}

/** How many ids of the synced set lie in (from, to]: the pass adds these up for the exact applied count. */
export async function desiredInRange(
  db: Queryable,
  linkId: string,
  from: bigint,
  to: bigint,
  cutoff: bigint | null,
  overrides = false,
): Promise<number> {
  const desiredTo = cutoff !== null && cutoff < to ? cutoff : to;
  if (overrides) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (${desiredSql(true, '$2', '$3', '$4')}) d`,
      [linkId, from.toString(), (desiredTo < from ? from : desiredTo).toString(), to.toString()],
    );
    return rows[0]?.n ?? 0;
  }
  if (desiredTo <= from) return 0;
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM link_user WHERE link_id = $1 AND user_id > ${toStored('$2')} AND user_id <= ${toStored('$3')}`,
    [linkId, from.toString(), desiredTo.toString()],
  );
  return rows[0]?.n ?? 0;
}

/**
 * The list's user id at `offset` in user-id order (null when the list is shorter): the first held id
 * when `offset` is the synced limit. One index-only scan with OFFSET. With `skipOverrides` the ids with
 * an override (either list) are not counted: "never" ids free their place, "always" ids hold a slot of
 * their own (the caller lowers `offset` by them).
 */
export async function listedUserAt(
  db: Queryable,
  linkId: string,
  offset: number,
  skipOverrides = false,
): Promise<bigint | null> {
  if (skipOverrides) {
    const { rows } = await db.query<{ user_id: string }>(
      `SELECT ${fromStored('user_id')} AS user_id FROM link_user lu WHERE link_id = $1
          AND NOT EXISTS (SELECT 1 FROM link_override o WHERE o.link_id = $1 AND o.user_id = lu.user_id)
        ORDER BY lu.user_id OFFSET $2 LIMIT 1`,
      [linkId, offset],
    );
    return rows[0] ? BigInt(rows[0].user_id) : null;
  }
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM link_user WHERE link_id = $1 ORDER BY link_user.user_id OFFSET $2 LIMIT 1`,
    [linkId, offset],
  );
  return rows[0] ? BigInt(rows[0].user_id) : null;
}
