import type { Plan } from '@rolelink/domain';
import type { Queryable } from '../client/queryable';
import { toStored } from '../client/user-id';

/**
 * What an API write checks in its own statement when its request was authenticated from the API's
 * memory of an earlier read rather than a read of its own (services/api links/link-auth.ts): the link still has this
 * token and is enabled, and its plan, paid slots and rank (what decides "paused") are those the request
 * was checked against. If not, nothing is written and the call throws StaleAuthError.
 */
export type AuthGuard = { tokenHash: Buffer; plan: Plan; paidSlots: number; rank: number };

/** A guarded write (AuthGuard) found the link changed since its request was authenticated: nothing was written. */
export class StaleAuthError extends Error {
  constructor(readonly linkId: string) {
    super(`link ${linkId} changed since the request was authenticated`);
    this.name = 'StaleAuthError';
  }
}

/** The link row of a list write, locked; with a guard, only if the guard still holds ($g1–$g4 its values). */
function lockedLink(columns: string, g: [string, string, string, string]): string {
  return `SELECT ${columns} FROM role_link l WHERE l.id = $1 AND (${g[0]}::bytea IS NULL OR (
              l.token_hash = ${g[0]} AND l.enabled
              AND (SELECT g.plan::text = ${g[1]} AND g.paid_slots = ${g[2]}::int FROM guild g WHERE g.id = l.guild_id)
              AND (SELECT count(*) FROM role_link o WHERE o.guild_id = l.guild_id AND o.id < l.id) = ${g[3]}::int)) FOR UPDATE`;
}

const guardValues = (guard: AuthGuard | undefined) =>
  guard ? [guard.tokenHash, guard.plan, guard.paidSlots, guard.rank] : [null, null, null, null];

/** `listVersion`: the list's version once the statement committed (the same for every ID of one call). */
export type AddResult = { added: boolean; atLimit: boolean; listVersion: string };

/**
 * Adds several users to one link in a single statement (one round trip, one implicit transaction):
 * locks the link row so the stored limit holds under concurrency, inserts idempotently, and keeps the
 * counter, the outbox marker and the change journal (list_change, one `add` per inserted ID) in the
 * same transaction as the rows. IDs are taken in array order, so
 * when the list is nearly full the earlier ones get the remaining room. `userIds` must be distinct.
 * `expiresAt` (parallel to userIds, absent or null: permanent) is each user's expiry: set on the new row,
 * and on a row already listed replaced by it (a re-add without expiry makes the membership permanent).
 *
 * Many single adds of one link share the link row's lock; the API coalesces the concurrent ones into one
 * call of this (services/api add-batcher), so they cost one lock hand-over and one commit instead of one
 * each. A named statement: planned once per pooled connection.
 */
export async function addUsers(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  storedLimit: number,
  expiresAt?: readonly (Date | null)[],
  guard?: AuthGuard,
): Promise<AddResult[]> {
  // No expiry in the batch: a NULL array, which the two-array unnest pads with NULLs (every ID permanent).
  const expiries = expiresAt?.some((e) => e !== null) ? expiresAt.map((e) => e?.toISOString() ?? null) : null;
  const { rows } = await db.query<{
    added: boolean;
    present: boolean;
    capped: boolean;
    version: string;
    locked: boolean;
  }>({
    name: 'rolelink.add-users-guarded',
    // `present` is one index probe per ID: a LATERAL … LIMIT 1 cannot be turned into a join. As an EXISTS
    // it was planned as a hashed subplan or semi-join, and the generic plan of this prepared statement
    // then read the link's whole list on every call (EXPLAIN ANALYZE: a bitmap scan of all 12,800 rows of
    // the link for a batch of 32; it grows with the list).
    text: `WITH l AS (${lockedLink('l.id, l.user_count, l.list_version', ['$5', '$6', '$7', '$8'])}),
          req AS (
            SELECT t.x AS user_id, t.ord, t.exp, p.hit IS NOT NULL AS present
            FROM (SELECT ${toStored('i.n')} AS x, i.e AS exp, i.ord FROM unnest($2::numeric[], $4::timestamptz[]) WITH ORDINALITY AS i(n, e, ord)) t
            LEFT JOIN LATERAL (SELECT 1 AS hit FROM link_user u WHERE u.link_id = $1 AND u.user_id = t.x LIMIT 1) p ON true),
          fresh AS (SELECT user_id, exp, row_number() OVER (ORDER BY ord) AS rn FROM req WHERE NOT present),
          ins AS (
            INSERT INTO link_user (link_id, user_id, expires_at)
            SELECT $1, f.user_id, f.exp FROM fresh f, l WHERE f.rn <= $3::int - l.user_count
            ON CONFLICT DO NOTHING RETURNING user_id),
          upd AS (
            UPDATE role_link SET user_count = user_count + (SELECT count(*) FROM ins)::int,
              sync_wanted_seq = sync_wanted_seq + 1, list_version = list_version + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM ins) RETURNING sync_wanted_seq, list_version),
          jr AS (INSERT INTO list_change (link_id, seq, user_id, op) SELECT $1, upd.sync_wanted_seq, ins.user_id, 'add' FROM ins, upd),
          -- The latest call wins: a user already listed takes this call's expiry, or none (permanent). Not a
          -- list change (no journal entry, same version); the row is written only when its expiry differs.
          ext AS (UPDATE link_user u SET expires_at = r.exp FROM req r, l
                   WHERE r.present AND u.link_id = l.id AND u.user_id = r.user_id AND u.expires_at IS DISTINCT FROM r.exp)
     SELECT i.user_id IS NOT NULL AS added, r.present, EXISTS (SELECT 1 FROM l) AS locked,
            COALESCE(f.rn > $3::int - (SELECT user_count FROM l), false) AS capped,
            COALESCE((SELECT list_version FROM upd), (SELECT list_version FROM l), 0)::text AS version
     FROM req r LEFT JOIN ins i ON i.user_id = r.user_id LEFT JOIN fresh f ON f.user_id = r.user_id
     ORDER BY r.ord`,
    values: [linkId, userIds, storedLimit, expiries, ...guardValues(guard)],
  });
  if (guard && !rows[0]?.locked) throw new StaleAuthError(linkId);
  return rows.map((r) => ({ added: r.added, atLimit: !r.added && !r.present && r.capped, listVersion: r.version }));
}

/** Adds one user (see addUsers); `expiresAt` null or absent: permanent. */
export async function addUser(
  db: Queryable,
  linkId: string,
  userId: string,
  storedLimit: number,
  expiresAt: Date | null = null,
): Promise<AddResult> {
  const [result] = await addUsers(db, linkId, [userId], storedLimit, [expiresAt]);
  return result!;
}

export type RemoveResult = { removed: boolean; listVersion: string };

/**
 * Removes several users of one link in a single statement and journals each removal (`remove`, under one
 * new sequence); never held by the shrink rule (spec 4.1 rule 6). The API coalesces concurrent single
 * removals of one link into one call (services/api link-batcher), as it does adds. `userIds` must be
 * distinct; one result per ID, in order. `listVersion`: after the statement.
 */
export async function removeUsers(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  guard?: AuthGuard,
): Promise<RemoveResult[]> {
  const { rows } = await db.query<{ removed: boolean; version: string; locked: boolean }>({
    name: 'rolelink.remove-users-guarded',
    // The link row is locked before the list rows (the delete joins it), the same order as every other
    // writer of the list: a removal racing a replace of the same link cannot deadlock.
    text: `WITH l AS (${lockedLink('l.id, l.list_version', ['$3', '$4', '$5', '$6'])}),
          del AS (DELETE FROM link_user u USING l
                   WHERE u.link_id = l.id AND u.user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i) RETURNING u.user_id),
          upd AS (
            UPDATE role_link SET user_count = user_count - (SELECT count(*) FROM del)::int, sync_wanted_seq = sync_wanted_seq + 1, list_version = list_version + 1, updated_at = now()
            WHERE id = $1 AND EXISTS (SELECT 1 FROM del) RETURNING sync_wanted_seq, list_version),
          jr AS (INSERT INTO list_change (link_id, seq, user_id, op) SELECT $1, upd.sync_wanted_seq, del.user_id, 'remove' FROM del, upd)
     SELECT d.user_id IS NOT NULL AS removed, EXISTS (SELECT 1 FROM l) AS locked,
            COALESCE((SELECT list_version FROM upd), (SELECT list_version FROM l), 0)::text AS version
     FROM (SELECT ${toStored('i.n')} AS x, i.ord FROM unnest($2::numeric[]) WITH ORDINALITY AS i(n, ord)) t LEFT JOIN del d ON d.user_id = t.x
     ORDER BY t.ord`,
    values: [linkId, userIds, ...guardValues(guard)],
  });
  if (guard && !rows[0]?.locked) throw new StaleAuthError(linkId);
  return rows.map((r) => ({ removed: r.removed, listVersion: r.version }));
}

/** Removes one user (see removeUsers). */
export async function removeUser(db: Queryable, linkId: string, userId: string): Promise<RemoveResult> {
  const [result] = await removeUsers(db, linkId, [userId]);
  return result!;
}

export async function hasUser(db: Queryable, linkId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>({
    name: 'rolelink.has-user',
    text: `SELECT EXISTS (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = ${toStored('$2')}) AS exists`,
    values: [linkId, userId],
  });
  return rows[0]!.exists;
}
