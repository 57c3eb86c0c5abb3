import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

/**
 * The per-link change journal (table list_change; design: sync engine rule 7). Every list write appends
 * what it changed in its own transaction, under the sequence it gave role_link.sync_wanted_seq, so the
 * bot worker can apply exactly the users that changed instead of walking the list.
 *
 * - user ops (user_id = the user): `add`, `remove` (list writes), `repair` (the reconcile changed the
 *   applied record of this user);
 * - link ops (user id 0, stored through toStored like every user id): `walk` (the change is too large or has no per-user form: the worker diffs the
 *   whole list), `link` (plan, slots, enabled, or a replace that changed nothing: the worker re-checks the
 *   synced boundary and walks only if it moved).
 *
 * The worker treats a sequence without any entry (a write that bypassed this repository) as `walk`.
 */
/** The user id of a link op: 0, which no user has. */
const LINK_OP = toStored('0');

export type ChangeOp = 'add' | 'remove' | 'repair' | 'walk' | 'link';
export type JournalEntry = { seq: bigint; userId: string; op: ChangeOp };

/** A replace that changes more users than this journals a `walk` instead (the walk reads in bounded ranges). */
export const JOURNAL_MAX_USERS = 10_000;

/** Journals a link-level op under a sequence the caller's write already took (holding the link row's lock). */
export async function journalAt(db: Queryable, linkId: string, seq: string, op: 'walk' | 'link'): Promise<void> {
  await db.query(`INSERT INTO list_change (link_id, seq, user_id, op) VALUES ($1, $2, ${LINK_OP}, $3)`, [
    linkId,
    seq,
    op,
  ]);
}

/** Bumps the link's sequence (the outbox) and journals one link-level op, in one statement. */
export async function journalLinkChange(db: Queryable, linkId: string, op: 'walk' | 'link'): Promise<void> {
  await db.query(
    `WITH l AS (UPDATE role_link SET sync_wanted_seq = sync_wanted_seq + 1, updated_at = now() WHERE id = $1 RETURNING id, sync_wanted_seq)
     INSERT INTO list_change (link_id, seq, user_id, op) SELECT id, sync_wanted_seq, ${LINK_OP}, $2 FROM l`,
    [linkId, op],
  );
}

/** Plan or slots changed: every link of the guild may have a new synced limit or paused state. */
export async function journalGuildChange(db: Queryable, guildId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH l AS (UPDATE role_link SET sync_wanted_seq = sync_wanted_seq + 1, updated_at = now() WHERE guild_id = $1 RETURNING id, sync_wanted_seq),
          j AS (INSERT INTO list_change (link_id, seq, user_id, op) SELECT id, sync_wanted_seq, ${LINK_OP}, 'link' FROM l)
     SELECT id::text AS id FROM l ORDER BY l.id`,
    [guildId],
  );
  return rows.map((r) => r.id);
}

/**
 * The reconcile changed these users' applied record: one new sequence, one `repair` entry each — or one
 * `walk` when there are more than a journal batch (e.g. the role was taken from everyone by hand).
 */
export async function journalRepairs(db: Queryable, linkId: string, userIds: readonly string[]): Promise<void> {
  if (!userIds.length) return;
  if (userIds.length > JOURNAL_MAX_USERS) return journalLinkChange(db, linkId, 'walk');
  await db.query(
    `WITH l AS (UPDATE role_link SET sync_wanted_seq = sync_wanted_seq + 1 WHERE id = $1 RETURNING id, sync_wanted_seq)
     INSERT INTO list_change (link_id, seq, user_id, op) SELECT l.id, l.sync_wanted_seq, ${toStored('u')}, 'repair' FROM l, unnest($2::numeric[]) u
     ON CONFLICT DO NOTHING`,
    [linkId, userIds],
  );
}

/**
 * Entries after `afterSeq`, whole sequences only, at most about `limit` entries (a sequence is never
 * split: one write's changes are applied together). Index range scan on the primary key.
 */
export async function readJournal(
  db: Queryable,
  linkId: string,
  afterSeq: bigint,
  limit = JOURNAL_MAX_USERS,
): Promise<{ entries: JournalEntry[]; more: boolean }> {
  const { rows } = await db.query<{ seq: string; user_id: string; op: ChangeOp }>(
    `SELECT seq::text, ${fromStored('user_id')} AS user_id, op FROM list_change WHERE link_id = $1 AND seq > $2 ORDER BY list_change.seq, list_change.user_id LIMIT $3`,
    [linkId, afterSeq.toString(), limit + 1],
  );
  const entries = rows.map((r) => ({ seq: BigInt(r.seq), userId: r.user_id, op: r.op }));
  if (entries.length <= limit) return { entries, more: false };
  const lastSeq = entries[entries.length - 1]!.seq;
  const whole = entries.filter((e) => e.seq !== lastSeq);
  // One sequence larger than the limit (cannot happen for writers that keep JOURNAL_MAX_USERS): take it whole.
  if (!whole.length) {
    const { rows: all } = await db.query<{ user_id: string; op: ChangeOp }>(
      `SELECT ${fromStored('user_id')} AS user_id, op FROM list_change WHERE link_id = $1 AND seq = $2 ORDER BY list_change.user_id`,
      [linkId, lastSeq.toString()],
    );
    return { entries: all.map((r) => ({ seq: lastSeq, userId: r.user_id, op: r.op })), more: true };
  }
  return { entries: whole, more: true };
}

/** Compaction: entries up to `uptoSeq` are on the platform (or covered by a walk) and are dropped. */
export async function compactJournal(db: Queryable, linkId: string, uptoSeq: bigint): Promise<number> {
  const r = await db.query('DELETE FROM list_change WHERE link_id = $1 AND seq <= $2', [linkId, uptoSeq.toString()]);
  return r.rowCount ?? 0;
}
