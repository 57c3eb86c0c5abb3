import type { Pool } from 'pg';
import { inTransaction, journalRepairs } from '@rolelink/db';
import type { APIGuildMember } from 'discord-api-types/v10';

export type RepairResult = { handAdded: number; handRemoved: number; eligibleAgain: number };

/**
 * Makes the applied record match one page of the platform's member listing for one link (design:
 * sync engine rule 6). The page covers user ids (after, last]; `seenAt` is PostgreSQL's time just before
 * the page was read: a record the sync worker wrote after it is newer than the page and is left alone,
 * so the reconcile never undoes a change it could not have seen.
 * - holds the role, record says otherwise → `applied` (a hand edit added it; the sync removes it if unwanted);
 * - record says applied, member lacks the role or left → `removed` (the sync adds it back if wanted);
 * - `not_in_guild` users who are members now → due at once.
 */
export async function repairPage(
  db: Pool,
  link: { id: string; roleId: string },
  page: { after: string; last: string | null; done: boolean; members: APIGuildMember[] },
  seenAt: Date,
): Promise<RepairResult> {
  const holders = page.members.filter((m) => m.roles.includes(link.roleId)).map((m) => m.user.id);
  const members = page.members.map((m) => m.user.id);
  const upper = page.done ? '9223372036854775807' : (page.last ?? page.after);

  return inTransaction(db, async (c) => {
    const added = await c.query<{ user_id: string }>(
      `INSERT INTO applied_member AS m (link_id, user_id, outcome, updated_at)
       SELECT $1, h, 'applied', clock_timestamp() FROM unnest($2::bigint[]) AS h
       ON CONFLICT (link_id, user_id) DO UPDATE
         SET outcome = 'applied', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL
         WHERE m.outcome <> 'applied' AND m.updated_at < $3
       RETURNING user_id::text`,
      [link.id, holders, seenAt],
    );
    const removed = await c.query<{ user_id: string }>(
      `UPDATE applied_member SET outcome = 'removed', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL
        WHERE link_id = $1 AND user_id > $2 AND user_id <= $3 AND outcome = 'applied' AND updated_at < $4
          AND NOT (user_id = ANY($5::bigint[]))
        RETURNING user_id::text`,
      [link.id, page.after, upper, seenAt, holders],
    );
    const eligible = await c.query<{ user_id: string }>(
      `UPDATE applied_member SET next_retry_at = NULL, updated_at = clock_timestamp()
        WHERE link_id = $1 AND outcome = 'not_in_guild' AND user_id = ANY($2::bigint[])
        RETURNING user_id::text`,
      [link.id, members],
    );
    // The repaired users go into the journal in the same transaction: the sync applies exactly them.
    await journalRepairs(c, link.id, [...added.rows, ...removed.rows, ...eligible.rows].map((r) => r.user_id));
    return { handAdded: added.rowCount ?? 0, handRemoved: removed.rowCount ?? 0, eligibleAgain: eligible.rowCount ?? 0 };
  });
}
