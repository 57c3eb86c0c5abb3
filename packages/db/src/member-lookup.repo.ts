import type { Queryable } from './queryable';
import { toStored } from './user-id';

// One user on one link, as `member lookup` shows them: on the list or not, their place in it, and the
// platform's last answer recorded for them.

export async function isListed(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const listed = await db.query(`SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = ${toStored('$2')}`, [linkId, userId]);
  return Boolean(listed.rowCount);
}

/** Listed ids below `userId`, counted up to `limit` only: enough to tell synced from held without walking a long list. */
export async function listedBelow(db: Queryable, linkId: string, userId: string, limit: number): Promise<number> {
  const { rows } = await db.query<{ below: string }>(`SELECT count(*)::text AS below FROM (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id < ${toStored('$2')} LIMIT $3) s`, [linkId, userId, limit]);
  return Number(rows[0]?.below ?? 0);
}

export async function appliedOutcome(db: Queryable, linkId: string, userId: string): Promise<{ outcome: string; updated_at: Date } | null> {
  const { rows } = await db.query<{ outcome: string; updated_at: Date }>(`SELECT outcome, updated_at FROM applied_member WHERE link_id = $1 AND user_id = ${toStored('$2')}`, [linkId, userId]);
  return rows[0] ?? null;
}
