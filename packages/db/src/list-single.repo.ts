import type { Queryable } from './queryable';

export type AddResult = { added: boolean; atLimit: boolean };

/**
 * Adds one user in a single statement (one round trip, one implicit transaction): locks the link row
 * so the stored limit holds under concurrency, inserts idempotently, and keeps the counter and the
 * outbox marker in the same transaction as the row.
 */
export async function addUser(db: Queryable, linkId: string, userId: string, storedLimit: number): Promise<AddResult> {
  const { rows } = await db.query<{ added: boolean; present: boolean; full: boolean }>(
    `WITH l AS (SELECT id, user_count FROM role_link WHERE id = $1 FOR UPDATE),
          present AS (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = $2),
          ins AS (
            INSERT INTO link_user (link_id, user_id)
            SELECT $1, $2 FROM l WHERE l.user_count < $3 AND NOT EXISTS (SELECT 1 FROM present)
            ON CONFLICT DO NOTHING RETURNING 1),
          upd AS (
            UPDATE role_link SET user_count = user_count + 1, sync_wanted_seq = sync_wanted_seq + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM ins) RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM upd) AS added,
            EXISTS (SELECT 1 FROM present) AS present,
            COALESCE((SELECT user_count >= $3 FROM l), false) AS full`,
    [linkId, userId, storedLimit],
  );
  const r = rows[0]!;
  return { added: r.added, atLimit: !r.added && !r.present && r.full };
}

/** Removes one user; never held by the shrink rule (spec 4.1 rule 6). */
export async function removeUser(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ removed: boolean }>(
    `WITH del AS (DELETE FROM link_user WHERE link_id = $1 AND user_id = $2 RETURNING 1),
          upd AS (
            UPDATE role_link SET user_count = user_count - 1, sync_wanted_seq = sync_wanted_seq + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM del) RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM upd) AS removed`,
    [linkId, userId],
  );
  return rows[0]!.removed;
}

export async function hasUser(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = $2) AS exists',
    [linkId, userId],
  );
  return rows[0]!.exists;
}
