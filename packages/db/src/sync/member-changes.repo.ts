import type { Queryable } from '../client/queryable';
import { toStored } from '../client/user-id';

export type MemberChange = { at: Date; action: 'add' | 'remove'; outcome: string; cause: string };

/** Entries kept per member of a link: enough to answer "why did this role move", never a growing log. */
export const MEMBER_HISTORY_KEEP = 20;

/**
 * Records one role change the bot sent and what the platform answered, and drops that member's entries
 * beyond the newest MEMBER_HISTORY_KEEP (the delete's snapshot does not see the row just inserted, so the
 * bound is KEEP + 1 for a moment). One statement, an index range on (link_id, user_id, id).
 */
export async function recordMemberChange(
  db: Queryable,
  c: { linkId: string; userId: string; action: 'add' | 'remove'; outcome: string; cause: string },
): Promise<void> {
  await db.query({
    name: 'rolelink.record-member-change',
    text: `WITH ins AS (INSERT INTO member_change (link_id, user_id, at, action, outcome, cause) VALUES ($1, ${toStored('$2')}, clock_timestamp(), $3, $4, $5))
           DELETE FROM member_change WHERE link_id = $1 AND user_id = ${toStored('$2')}
              AND id <= (SELECT id FROM member_change WHERE link_id = $1 AND user_id = ${toStored('$2')} ORDER BY id DESC OFFSET $6 - 1 LIMIT 1)`,
    values: [c.linkId, c.userId, c.action, c.outcome, c.cause, MEMBER_HISTORY_KEEP],
  });
}

/** The member's recent role changes on the link, newest first. */
export async function memberHistory(db: Queryable, linkId: string, userId: string): Promise<MemberChange[]> {
  const { rows } = await db.query<MemberChange>(
    `SELECT at, action, outcome, cause FROM member_change WHERE link_id = $1 AND user_id = ${toStored('$2')} ORDER BY id DESC LIMIT $3`,
    [linkId, userId, MEMBER_HISTORY_KEEP],
  );
  return rows;
}
