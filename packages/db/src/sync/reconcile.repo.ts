import type { Plan } from '@rolelink/domain';
import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

// The reconcile's reads of role_link and its repairs of the applied record (applied_member) against the
// platform's member listing. Repairs are guarded by `seenAt`: a record written after the page was read
// is newer than the page and is left alone.

export type ReconcileLinkRow = {
  id: string;
  guild_id: string;
  role_id: string;
  enabled: boolean;
  member_mode: string;
  first_list_at: Date | null;
  plan: Plan;
  paid_slots: number;
  rank: number;
  behind: boolean;
};

/** Every link (of one guild, or all), with its 0-based slot rank and whether its sync is behind; guild then id order. */
export async function reconcileLinks(db: Queryable, guildId?: string): Promise<ReconcileLinkRow[]> {
  const { rows } = await db.query<ReconcileLinkRow>(
    `SELECT rl.id::text, rl.guild_id::text, rl.role_id::text, rl.enabled, rl.member_mode, rl.first_list_at, g.plan, g.paid_slots,
            (row_number() OVER (PARTITION BY rl.guild_id ORDER BY rl.id) - 1)::int AS rank,
            rl.sync_wanted_seq > rl.sync_done_seq AS behind
       FROM role_link rl JOIN guild g ON g.id = rl.guild_id
      WHERE $1::bigint IS NULL OR rl.guild_id = $1::bigint
      ORDER BY rl.guild_id, rl.id`,
    [guildId ?? null],
  );
  return rows;
}

/** PostgreSQL's clock, the one every applied_member.updated_at is written with. */
export async function databaseNow(db: Queryable): Promise<Date> {
  const { rows } = await db.query<{ t: Date }>('SELECT localtimestamp(3) AS t');
  return rows[0]!.t;
}

/**
 * Holders of the role the record does not have as applied (a hand edit added it): now `applied`, and not
 * granted — the link did not give it, so a strip must not take it. Returns their ids.
 */
export async function markHandAdded(
  db: Queryable,
  linkId: string,
  holders: readonly string[],
  seenAt: Date,
): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `INSERT INTO applied_member AS m (link_id, user_id, outcome, updated_at)
     SELECT $1, ${toStored('h')}, 'applied', clock_timestamp() FROM unnest($2::numeric[]) AS h
     ON CONFLICT (link_id, user_id) DO UPDATE
       SET outcome = 'applied', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = false
       WHERE m.outcome <> 'applied' AND m.updated_at < $3
     RETURNING ${fromStored('user_id')} AS user_id`,
    [linkId, holders, seenAt],
  );
  return rows.map((r) => r.user_id);
}

/** Records of ids in (after, upper] held as applied whom the page shows without the role: now `removed`. Returns their ids. */
export async function markHandRemoved(
  db: Queryable,
  linkId: string,
  page: { after: string; upper: string; holders: readonly string[] },
  seenAt: Date,
): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE applied_member SET outcome = 'removed', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = false
      WHERE link_id = $1 AND user_id > ${toStored('$2')} AND user_id <= ${toStored('$3')} AND outcome = 'applied' AND updated_at < $4
        AND user_id NOT IN (SELECT ${toStored('h')} FROM unnest($5::numeric[]) h)
      RETURNING ${fromStored('user_id')} AS user_id`,
    [linkId, page.after, page.upper, seenAt, page.holders],
  );
  return rows.map((r) => r.user_id);
}

/** `not_in_guild` users who are members now: due at once. Returns their ids. */
export async function markEligibleAgain(db: Queryable, linkId: string, members: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE applied_member SET next_retry_at = NULL, updated_at = clock_timestamp()
      WHERE link_id = $1 AND outcome = 'not_in_guild' AND user_id IN (SELECT ${toStored('m')} FROM unnest($2::numeric[]) m)
      RETURNING ${fromStored('user_id')} AS user_id`,
    [linkId, members],
  );
  return rows.map((r) => r.user_id);
}
