import type { Queryable } from './queryable';

export type AddResult = { added: boolean; atLimit: boolean };

/**
 * Adds several users to one link in a single statement (one round trip, one implicit transaction):
 * locks the link row so the stored limit holds under concurrency, inserts idempotently, and keeps the
 * counter and the outbox marker in the same transaction as the rows. IDs are taken in array order, so
 * when the list is nearly full the earlier ones get the remaining room. `userIds` must be distinct.
 *
 * Many single adds of one link share the link row's lock; the API coalesces the concurrent ones into one
 * call of this (services/api add-batcher), so they cost one lock hand-over and one commit instead of one
 * each. A named statement: planned once per pooled connection.
 */
export async function addUsers(db: Queryable, linkId: string, userIds: readonly string[], storedLimit: number): Promise<AddResult[]> {
  const { rows } = await db.query<{ added: boolean; present: boolean; capped: boolean }>({
    name: 'rolelink.add-users',
    text: `WITH l AS (SELECT id, user_count FROM role_link WHERE id = $1 FOR UPDATE),
          req AS (SELECT x AS user_id, ord FROM unnest($2::bigint[]) WITH ORDINALITY AS t(x, ord)),
          present AS (
            SELECT r.user_id FROM req r WHERE EXISTS (SELECT 1 FROM link_user u WHERE u.link_id = $1 AND u.user_id = r.user_id)),
          fresh AS (
            SELECT r.user_id, row_number() OVER (ORDER BY r.ord) AS rn FROM req r
            WHERE NOT EXISTS (SELECT 1 FROM present p WHERE p.user_id = r.user_id)),
          ins AS (
            INSERT INTO link_user (link_id, user_id)
            SELECT $1, f.user_id FROM fresh f, l WHERE f.rn <= $3::int - l.user_count
            ON CONFLICT DO NOTHING RETURNING user_id),
          upd AS (
            UPDATE role_link SET user_count = user_count + (SELECT count(*) FROM ins)::int,
              sync_wanted_seq = sync_wanted_seq + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM ins) RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM ins i WHERE i.user_id = r.user_id) AS added,
            EXISTS (SELECT 1 FROM present p WHERE p.user_id = r.user_id) AS present,
            COALESCE((SELECT f.rn > $3::int - l.user_count FROM fresh f, l WHERE f.user_id = r.user_id), false) AS capped
     FROM req r ORDER BY r.ord`,
    values: [linkId, userIds, storedLimit],
  });
  return rows.map((r) => ({ added: r.added, atLimit: !r.added && !r.present && r.capped }));
}

/** Adds one user (see addUsers). */
export async function addUser(db: Queryable, linkId: string, userId: string, storedLimit: number): Promise<AddResult> {
  const [result] = await addUsers(db, linkId, [userId], storedLimit);
  return result!;
}

/** Removes one user; never held by the shrink rule (spec 4.1 rule 6). */
export async function removeUser(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ removed: boolean }>({
    name: 'rolelink.remove-user',
    text: `WITH del AS (DELETE FROM link_user WHERE link_id = $1 AND user_id = $2 RETURNING 1),
          upd AS (
            UPDATE role_link SET user_count = user_count - 1, sync_wanted_seq = sync_wanted_seq + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM del) RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM upd) AS removed`,
    values: [linkId, userId],
  });
  return rows[0]!.removed;
}

export async function hasUser(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>({
    name: 'rolelink.has-user',
    text: 'SELECT EXISTS (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = $2) AS exists',
    values: [linkId, userId],
  });
  return rows[0]!.exists;
}
