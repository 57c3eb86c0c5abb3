import type { Queryable } from '../client/queryable';

/**
 * Listed users no role call can reach, by the platform's last answer, counted apart from
 * progress: neither synced (they hold nothing) nor pending (no call can give them the role now).
 * - `notInServer`: outcome `not_in_guild` (10007 Unknown Member): they get the role when they join.
 * - `deleted`: outcome `unknown_user` (10013 Unknown User): the account no longer exists, for good.
 */
export type ListedUnreachable = { notInServer: number; deleted: number };

/**
 * Both counts in one look at the applied record, only for users the list still names (a user the plugin
 * dropped is no one's concern). The partial index applied_member_unreachable_idx holds just those rows,
 * so this never walks a link's applied record; each is checked against the list by its primary key.
 */
export async function listedUnreachable(db: Queryable, linkId: string): Promise<ListedUnreachable> {
  const { rows } = await db.query<ListedUnreachable>(
    `SELECT count(*) FILTER (WHERE am.outcome = 'not_in_guild')::int AS "notInServer",
            count(*) FILTER (WHERE am.outcome = 'unknown_user')::int AS "deleted"
       FROM applied_member am
      WHERE am.link_id = $1 AND am.outcome IN ('not_in_guild', 'unknown_user')
        AND EXISTS (SELECT 1 FROM link_user lu WHERE lu.link_id = am.link_id AND lu.user_id = am.user_id)`,
    [linkId],
  );
  return rows[0] ?? { notInServer: 0, deleted: 0 };
}
