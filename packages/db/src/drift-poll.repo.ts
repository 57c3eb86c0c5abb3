import { fromStored, toStored } from './user-id';
import type { Queryable } from './queryable';

// Drift repair (docs/sync-engine.md, "Drift repair"): the bot worker's place in each guild's audit log
// (`drift_poll`), which guild it reads next, and the per-user repairs of the applied record that what
// it read calls for. `markHandRemovedUsers` takes a `seenAt` guard like the reconcile's repairs
// (reconcile.repo.ts: a record written after `seenAt` is left alone); the drift poll passes one that holds
// nothing back, since there the log's order decides (docs/sync-engine.md).

/** ok | no_permission (the bot lacks View Audit Log in the guild) | failed (another error; retried next interval). */
export type DriftPollStatus = 'ok' | 'no_permission' | 'failed';

export type DriftGuild = { guildId: string; lastEntryId: string | null; status: DriftPollStatus };

/**
 * Keeps one row per guild with active links: adds the new ones (due at once) and drops guilds that
 * have none any more (a guild that comes back starts from the log's newest page, not from a stale place).
 */
export async function syncDriftGuilds(db: Queryable, guildIds: readonly string[]): Promise<void> {
  await db.query('DELETE FROM drift_poll WHERE NOT (guild_id = ANY($1::bigint[]))', [guildIds]);
  await db.query('INSERT INTO drift_poll (guild_id) SELECT unnest($1::bigint[]) ON CONFLICT (guild_id) DO NOTHING', [guildIds]);
}

/**
 * Claims up to `limit` guilds whose read is due, the most overdue first, and moves their next read
 * `leaseMs` ahead so another worker does not read them meanwhile (the poll sets the real next time
 * when it is done; a worker that dies holding a claim only delays that guild by the lease).
 */
export async function claimDueDriftGuilds(db: Queryable, limit: number, leaseMs: number): Promise<DriftGuild[]> {
  const { rows } = await db.query<{ guild_id: string; last_entry_id: string | null; status: DriftPollStatus }>(
    `UPDATE drift_poll d SET next_poll_at = localtimestamp + make_interval(secs => $2::double precision / 1000)
      WHERE d.guild_id IN (SELECT guild_id FROM drift_poll WHERE next_poll_at <= localtimestamp ORDER BY next_poll_at, guild_id LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING d.guild_id::text, d.last_entry_id::text, d.status`,
    [limit, leaseMs],
  );
  return rows.map((r) => ({ guildId: r.guild_id, lastEntryId: r.last_entry_id, status: r.status }));
}

/**
 * Records a read: the newest entry id seen (kept when null), the outcome, the users repaired, and when
 * the guild is due again (`nextInMs` from now; 0 = at once, for a guild whose log had more to read).
 */
export async function finishDriftPoll(db: Queryable, guildId: string, r: { lastEntryId: string | null; status: DriftPollStatus; repaired: number; nextInMs: number }): Promise<void> {
  await db.query(
    `UPDATE drift_poll SET last_entry_id = COALESCE($2::bigint, last_entry_id), status = $3, repaired = repaired + $4, polled_at = localtimestamp,
            next_poll_at = localtimestamp + make_interval(secs => $5::double precision / 1000)
      WHERE guild_id = $1`,
    [guildId, r.lastEntryId, r.status, r.repaired, r.nextInMs],
  );
}

/** Gives a claimed guild back unread (the poll's budget ran out): due again at once. */
export async function releaseDriftGuild(db: Queryable, guildId: string): Promise<void> {
  await db.query('UPDATE drift_poll SET next_poll_at = localtimestamp WHERE guild_id = $1', [guildId]);
}

/** Guilds per status, for the poll's log line (how many cannot be read for want of View Audit Log). */
export async function countDriftGuilds(db: Queryable): Promise<Partial<Record<DriftPollStatus, number>>> {
  const { rows } = await db.query<{ status: DriftPollStatus; n: number }>('SELECT status, count(*)::int AS n FROM drift_poll GROUP BY status');
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Users the audit log shows losing the role by hand whose record says `applied`: now `removed` (the sync
 * adds it back if they are wanted). Returns their ids. The add side is the reconcile's `markHandAdded`.
 */
export async function markHandRemovedUsers(db: Queryable, linkId: string, userIds: readonly string[], seenAt: Date): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE applied_member SET outcome = 'removed', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = false
      WHERE link_id = $1 AND user_id = ANY(SELECT ${toStored('u')} FROM unnest($2::numeric[]) AS u) AND outcome = 'applied' AND updated_at < $3
      RETURNING ${fromStored('user_id')} AS user_id`,
    [linkId, userIds, seenAt],
  );
  return rows.map((r) => r.user_id);
}
