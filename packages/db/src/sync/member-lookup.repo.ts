import type { Queryable } from '../client/queryable';
import { toStored } from '../client/user-id';

// One user on one link, as `member lookup` shows them: on the list or not, their place in it, and the
// platform's last answer recorded for them.

export async function isListed(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const listed = await db.query(`SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = ${toStored('$2')}`, [
    linkId,
    userId,
  ]);
  return Boolean(listed.rowCount);
}

/** Listed ids below `userId`, counted up to `limit` only: enough to tell synced from held without walking a long list. */
export async function listedBelow(
  db: Queryable,
  linkId: string,
  userId: string,
  limit: number,
  skipOverrides = false,
): Promise<number> {
  // skipOverrides: ids with an admin override do not take a listed place (the sync engine's boundary, sync-diff.repo.ts listedUserAt).
  const skip = skipOverrides
    ? 'AND NOT EXISTS (SELECT 1 FROM link_override o WHERE o.link_id = $1 AND o.user_id = lu.user_id)'
    : '';
  const { rows } = await db.query<{ below: string }>(
    `SELECT count(*)::text AS below FROM (SELECT 1 FROM link_user lu WHERE link_id = $1 AND user_id < ${toStored('$2')} ${skip} LIMIT $3) s`,
    [linkId, userId, limit],
  );
  return Number(rows[0]?.below ?? 0);
}

export async function appliedOutcome(
  db: Queryable,
  linkId: string,
  userId: string,
): Promise<{ outcome: string; updated_at: Date } | null> {
  const { rows } = await db.query<{ outcome: string; updated_at: Date }>(
    `SELECT outcome, updated_at FROM applied_member WHERE link_id = $1 AND user_id = ${toStored('$2')}`,
    [linkId, userId],
  );
  return rows[0] ?? null;
}
