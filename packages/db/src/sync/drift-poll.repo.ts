import { fromStored, toStored } from '../client/user-id';
import type { Queryable } from '../client/queryable';

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
  await db.query('INSERT INTO drift_poll (guild_id) SELECT unnest($1::bigint[]) ON CONFLICT (guild_id) DO NOTHING', [
    guildIds,
  ]);
}

/**
 * Which guild the poll reads next (docs/sync-engine.md "Which guild next"). A guild is `changed` for
 * `changedForMs` after the bot changed a linked role there (`noteLinkChanged`) or the poll saw a hand edit
 * there (`finishDriftPoll`'s `handEdit`). Reads are handed out in turns, counted across ticks: changed
 * guilds get `changedShare` of the turns and quiet ones the rest (`isQuietTurn`), each kind the longest
 * unread first, and a kind with none due gives its turn to the other. Quiet guilds thus keep their share
 * however many guilds changed (no starvation), even when a tick has budget for one read only.
 */
export type DriftPriority = { changedForMs: number; changedShare: number };

/** An hour ("guilds with changes in the last hour"); four of every five turns for changed guilds. */
export const DRIFT_PRIORITY: DriftPriority = { changedForMs: 60 * 60_000, changedShare: 0.8 };

/** Whether turn `n` (0, 1, 2, … across ticks) is a quiet guild's: spread evenly, `1 − changedShare` of them (4, 9, 14, … at 0.8). */
export function isQuietTurn(n: number, changedShare: number): boolean {
  const quiet = 1 - changedShare;
  return Math.floor((n + 1) * quiet + 1e-9) > Math.floor(n * quiet + 1e-9);
}

/** A claimed guild, in the order to read it (`changed`: it had a changed guild's turn). */
export type ClaimedDriftGuild = DriftGuild & { changed: boolean };

/**
 * Claims up to `limit` guilds whose read is due (`next_poll_at` passed: at most one read per interval),
 * in the order of turns `firstTurn`, `firstTurn + 1`, … (`DriftPriority`), and moves their next read
 * `leaseMs` ahead so another worker does not read them meanwhile (the poll sets the real next time when it
 * is done; a worker that dies holding a claim only delays that guild by the lease). Two claims at once
 * never return the same guild: the UPDATE re-checks `next_poll_at` on a row another claim has just leased.
 */
export async function claimDueDriftGuilds(
  db: Queryable,
  limit: number,
  leaseMs: number,
  o: DriftPriority & { firstTurn?: number } = DRIFT_PRIORITY,
): Promise<ClaimedDriftGuild[]> {
  // Each kind's candidates are a top-N of its own (no sort of every due row), merged here by turn.
  const { rows } = await db.query<{ guild_id: string; changed: boolean }>(
    `WITH due AS (
       SELECT guild_id, polled_at, GREATEST(link_changed_at, hand_edit_at) > localtimestamp(3) - make_interval(secs => $2::double precision / 1000) IS TRUE AS changed
         FROM drift_poll WHERE next_poll_at <= localtimestamp(3)
     )
     (SELECT guild_id::text, true AS changed FROM due WHERE changed ORDER BY polled_at NULLS FIRST, guild_id LIMIT $1)
     UNION ALL
     (SELECT guild_id::text, false FROM due WHERE NOT changed ORDER BY polled_at NULLS FIRST, guild_id LIMIT $1)`,
    [limit, o.changedForMs],
  );
  const queues = { changed: rows.filter((r) => r.changed), quiet: rows.filter((r) => !r.changed) };
  const order: { guild_id: string; changed: boolean }[] = [];
  for (let n = o.firstTurn ?? 0; order.length < limit && queues.changed.length + queues.quiet.length > 0; n++) {
    const [mine, other] = isQuietTurn(n, o.changedShare)
      ? [queues.quiet, queues.changed]
      : [queues.changed, queues.quiet];
    order.push((mine.length ? mine : other).shift()!);
  }
  if (!order.length) return [];
  const { rows: claimed } = await db.query<{ guild_id: string; last_entry_id: string | null; status: DriftPollStatus }>(
    `UPDATE drift_poll SET next_poll_at = localtimestamp(3) + make_interval(secs => $2::double precision / 1000)
      WHERE guild_id = ANY($1::bigint[]) AND next_poll_at <= localtimestamp(3)
      RETURNING guild_id::text, last_entry_id::text, status`,
    [order.map((g) => g.guild_id), leaseMs],
  );
  const byId = new Map(claimed.map((r) => [r.guild_id, r]));
  return order.flatMap(({ guild_id, changed }) => {
    const r = byId.get(guild_id);
    return r ? [{ guildId: r.guild_id, lastEntryId: r.last_entry_id, status: r.status, changed }] : [];
  });
}

/**
 * Records a read: the newest entry id seen (kept when null), the outcome, the users repaired, whether the
 * page held a hand edit of a linked role (the guild is then `changed` for a while), and when the guild is
 * due again (`nextInMs` from now; 0 = at once, for a guild whose log had more to read).
 */
export async function finishDriftPoll(
  db: Queryable,
  guildId: string,
  r: { lastEntryId: string | null; status: DriftPollStatus; repaired: number; nextInMs: number; handEdit?: boolean },
): Promise<void> {
  await db.query(
    `UPDATE drift_poll SET last_entry_id = COALESCE($2::bigint, last_entry_id), status = $3, repaired = repaired + $4, polled_at = localtimestamp(3),
            next_poll_at = localtimestamp(3) + make_interval(secs => $5::double precision / 1000),
            hand_edit_at = CASE WHEN $6::boolean THEN localtimestamp(3) ELSE hand_edit_at END
      WHERE guild_id = $1`,
    [guildId, r.lastEntryId, r.status, r.repaired, r.nextInMs, r.handEdit ?? false],
  );
}

/**
 * The bot changed a linked role in the guild (a sync slice applied adds or removes): its log is read ahead
 * of quiet guilds' for a while, since a hand edit that undoes a fresh grant is the drift users notice. A
 * guild without a row (not polled yet, or the poll is off) is left alone: the poll's next tick adds it,
 * unread, which puts it first among its kind.
 */
export async function noteLinkChanged(db: Queryable, guildId: string): Promise<void> {
  await db.query('UPDATE drift_poll SET link_changed_at = localtimestamp(3) WHERE guild_id = $1', [guildId]);
}

/** Coverage of one kind of guild: how many, the age of the least recently read (0: none), the share read within `withinMs` (1: none). */
export type DriftCoverageFigures = { guilds: number; oldestAgeSeconds: number; shareWithin: number };
export type DriftCoverage = { all: DriftCoverageFigures; changed: DriftCoverageFigures };

/**
 * The poll's coverage (rolelink_drift_poll_*): over the guilds it may read (a guild without View Audit
 * Log is asked only hourly by design, and waits for the reconcile, so it is left out), and over the
 * changed ones. A guild not read yet counts its age from when it got its row.
 */
export async function readDriftCoverage(
  db: Queryable,
  withinMs = 120_000,
  changedForMs = DRIFT_PRIORITY.changedForMs,
): Promise<DriftCoverage> {
  const { rows } = await db.query<{ changed: boolean; guilds: number; oldest: number | null; within: number }>(
    `SELECT GREATEST(link_changed_at, hand_edit_at) > localtimestamp(3) - make_interval(secs => $2::double precision / 1000) IS TRUE AS changed, count(*)::int AS guilds,
            extract(epoch FROM localtimestamp(3) - min(COALESCE(polled_at, created_at)))::float8 AS oldest,
            count(*) FILTER (WHERE polled_at >= localtimestamp(3) - make_interval(secs => $1::double precision / 1000))::int AS within
       FROM drift_poll WHERE status <> 'no_permission' GROUP BY 1`,
    [withinMs, changedForMs],
  );
  const figures = (rs: typeof rows): DriftCoverageFigures => {
    const guilds = rs.reduce((n, r) => n + r.guilds, 0);
    const within = rs.reduce((n, r) => n + r.within, 0);
    const oldest = Math.max(0, ...rs.map((r) => r.oldest ?? 0));
    return { guilds, oldestAgeSeconds: oldest, shareWithin: guilds ? within / guilds : 1 };
  };
  return { all: figures(rows), changed: figures(rows.filter((r) => r.changed)) };
}

/** Gives a claimed guild back unread (the poll's budget ran out): due again at once. */
export async function releaseDriftGuild(db: Queryable, guildId: string): Promise<void> {
  await db.query('UPDATE drift_poll SET next_poll_at = localtimestamp(3) WHERE guild_id = $1', [guildId]);
}

/** Guilds per status, for the poll's log line (how many cannot be read for want of View Audit Log). */
export async function countDriftGuilds(db: Queryable): Promise<Partial<Record<DriftPollStatus, number>>> {
  const { rows } = await db.query<{ status: DriftPollStatus; n: number }>(
    'SELECT status, count(*)::int AS n FROM drift_poll GROUP BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Users the audit log shows losing the role by hand whose record says `applied`: now `removed` (the sync
 * adds it back if they are wanted). Returns their ids. The add side is the reconcile's `markHandAdded`.
 */
export async function markHandRemovedUsers(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  seenAt: Date,
): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE applied_member SET outcome = 'removed', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = false
      WHERE link_id = $1 AND user_id = ANY(SELECT ${toStored('u')} FROM unnest($2::numeric[]) AS u) AND outcome = 'applied' AND updated_at < $3
      RETURNING ${fromStored('user_id')} AS user_id`,
    [linkId, userIds, seenAt],
  );
  return rows.map((r) => r.user_id);
}
