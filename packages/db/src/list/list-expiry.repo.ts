import type { PoolClient } from 'pg';
import { inTransaction, type Queryable } from '../client/queryable';
import { recordMemberExpiredEvents } from '../events/plugin-event-emit.repo';
import { bigintArrayLiteral, fromStored, toStored } from '../client/user-id';

// Memberships that end on their own: link_user.expires_at, NULL for a permanent one.
// Set by adds (list-single.repo addUsers), by a replace (PUT or upload commit, setReplaceExpiries) and
// removed at their time by the expiry sweeper (services/api expiry-sweeper.ts) through removeExpired,
// which writes exactly what a plugin's DELETE writes.

/** Rows of one sweep statement: a bounded transaction, and a journal sequence the worker applies per user. */
export const EXPIRY_BATCH = 10_000;

/**
 * Links with memberships due at `now`, from the first `limit` due rows in expiry order (a range scan of
 * the partial index link_user_expires_at_idx). Reads without locking: removeExpired locks and re-checks.
 * The sweep spans links by nature; joined to role_link on link_id, it stays a co-located join when both
 * tables are distributed by link (every list statement carries link_id in its WHERE or join).
 */
export async function linksWithDueExpiries(db: Queryable, now: Date, limit = EXPIRY_BATCH): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT DISTINCT d.id::text AS id FROM (SELECT l.id FROM link_user u JOIN role_link l ON l.id = u.link_id WHERE u.expires_at <= $1 ORDER BY u.expires_at LIMIT $2) d`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export type ExpiredRemoval = { userIds: string[]; listVersion: string | null };

/**
 * Removes up to `limit` of one link's memberships due at `now`, as removeUsers removes a plugin's DELETE:
 * the link row locked first (the order of every list writer: no deadlock with a replace), the rows
 * deleted, the counter, outbox sequence and list version bumped and one `remove` journal entry per user
 * under one sequence, and the `member.expired` events of the plugins that asked for them, in one transaction. The worker then applies it as any removal, promoting the
 * next lowest IDs into the synced set when the list was over the plan's synced limit.
 *
 * Two sweepers on one link: the second waits for the link row, then reads the rows still due (the first's
 * are gone), so none is removed or journaled twice. A re-add that cleared or extended an expiry holds the
 * same lock, so it lands before or after, never between the read and the delete. `listVersion` null: nothing was due any more.
 */
export async function removeExpired(
  db: Queryable,
  linkId: string,
  now: Date,
  limit = EXPIRY_BATCH,
): Promise<ExpiredRemoval> {
  return inTransaction(db, async (c) => {
    // The lock first, then the due rows read in a statement of their own: its snapshot is taken after the
    // lock was granted, so a sweeper that waited here sees what the one before it removed and takes the next rows.
    const locked = await c.query('SELECT 1 FROM role_link WHERE id = $1 FOR UPDATE', [linkId]);
    if (!locked.rowCount) return { userIds: [], listVersion: null };
    const { rows } = await c.query<{ user_id: string | null; version: string | null }>({
      name: 'rolelink.remove-expired-journaled',
      text: `WITH due AS (SELECT user_id FROM link_user WHERE link_id = $1 AND expires_at <= $2 ORDER BY expires_at LIMIT $3),
            del AS (DELETE FROM link_user u WHERE u.link_id = $1 AND u.user_id IN (SELECT user_id FROM due) AND u.expires_at <= $2 RETURNING u.user_id),
            upd AS (
              UPDATE role_link SET user_count = user_count - (SELECT count(*) FROM del)::int, sync_wanted_seq = sync_wanted_seq + 1, list_version = list_version + 1, updated_at = now()
              WHERE id = $1 AND EXISTS (SELECT 1 FROM del) RETURNING sync_wanted_seq, list_version),
            jr AS (INSERT INTO list_change (link_id, seq, user_id, op) SELECT $1, upd.sync_wanted_seq, del.user_id, 'remove' FROM del, upd)
       SELECT ${fromStored('d.user_id')} AS user_id, (SELECT list_version::text FROM upd) AS version
       FROM (SELECT 1) one LEFT JOIN del d ON true`,
      values: [linkId, now, limit],
    });
    const userIds = rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id]));
    // Its `member.expired` events in the same transaction, as every other event is recorded with the write
    // that causes it: the removal and the plugin's notice of it commit together or not at all.
    await recordMemberExpiredEvents(c, linkId, userIds, now);
    return { userIds, listVersion: rows[0]?.version ?? null };
  });
}

/** One link's memberships that expire, by user id (GET /users?include=expiry). Partial index on link_id. */
export async function listExpiries(db: Queryable, linkId: string): Promise<{ userId: string; expiresAt: Date }[]> {
  const { rows } = await db.query<{ user_id: string; expires_at: Date }>(
    `SELECT ${fromStored('user_id')} AS user_id, expires_at FROM link_user WHERE link_id = $1 AND expires_at IS NOT NULL ORDER BY user_id`,
    [linkId],
  );
  return rows.map((r) => ({ userId: r.user_id, expiresAt: r.expires_at }));
}

/** One user's expiry on one link: null when permanent, undefined when not listed (member look-up). */
export async function userExpiry(db: Queryable, linkId: string, userId: string): Promise<Date | null | undefined> {
  const { rows } = await db.query<{ expires_at: Date | null }>(
    `SELECT expires_at FROM link_user WHERE link_id = $1 AND user_id = ${toStored('$2')}`,
    [linkId, userId],
  );
  return rows.length ? rows[0]!.expires_at : undefined;
}

/** Per-user expiries of a PUT or a chunk, as parallel arrays: user ids and RFC 3339 times. */
export type ItemExpiries = { ids: readonly string[]; at: readonly string[] };

/**
 * After a replace wrote the new list (same transaction, link row locked): every listed user takes the
 * expiry the new list gives them, none for a plain ID: the latest call wins, as for a single add. The
 * clear reads only the link's expiring rows (partial index link_user_expiring_link_idx), so a plain PUT
 * on a link without expiries costs one empty index probe. An upload's expiries were staged with its
 * chunks; an ID staged twice with two expiries keeps the later time.
 */
export async function setReplaceExpiries(
  c: PoolClient,
  linkId: string,
  source: { kind: 'ids'; expiries?: ItemExpiries | null } | { kind: 'upload'; uploadId: string },
): Promise<void> {
  await c.query('UPDATE link_user SET expires_at = NULL WHERE link_id = $1 AND expires_at IS NOT NULL', [linkId]);
  if (source.kind === 'ids') {
    if (!source.expiries?.ids.length) return;
    await c.query(
      `UPDATE link_user u SET expires_at = e.at FROM (SELECT ${toStored('i')} AS user_id, max(a) AS at FROM unnest($2::numeric[], $3::timestamptz[]) AS x(i, a) GROUP BY 1) e
       WHERE u.link_id = $1 AND u.user_id = e.user_id`,
      [linkId, bigintArrayLiteral(source.expiries.ids), source.expiries.at],
    );
    return;
  }
  await c.query(
    `UPDATE link_user u SET expires_at = e.at FROM (SELECT user_id, max(expires_at) AS at FROM upload_staged WHERE link_id = $1 AND upload_id = $2 AND expires_at IS NOT NULL GROUP BY 1) e
     WHERE u.link_id = $1 AND u.user_id = e.user_id`,
    [linkId, source.uploadId],
  );
}
