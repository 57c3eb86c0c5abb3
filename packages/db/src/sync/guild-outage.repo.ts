import { backoffExpression, backoffMs, type Backoff } from '@rolelink/wire-types/backoff';
import type { Queryable } from '../client/queryable';

// Guilds the bot cannot reach (`guild_outage`; docs/sync-engine.md "Bot removed from a guild,
// or the guild gone"): one row while the platform answers 10004 (or 50001 on a guild route). The links of
// such a guild make no per-user calls; the guild is probed a bounded number of times at growing intervals,
// and the bot's return (a probe, the reconcile's look at the bot's guild list, the dashboard after an
// invite) deletes the row, whereupon the links resume from where they stood.

/** Probes of an unreachable guild before only the bot's guild list can bring it back: 1, 2, 4 … 60, 60 min. */
export const GUILD_PROBES = 8;
/** The delay before probe `n` (0-based): 1 min doubling, capped at 1 h. */
export const PROBE_BACKOFF: Backoff = { firstMs: 60_000, maxMs: 3_600_000 };
export const probeDelayMs = (n: number): number => backoffMs(PROBE_BACKOFF, n);

export type GuildOutage = {
  guildId: string;
  since: Date;
  code: number;
  probes: number;
  nextProbeAt: Date | null;
  notified: boolean;
};

type Row = {
  guild_id: string;
  since: Date;
  code: number;
  probes: number;
  next_probe_at: Date | null;
  notified: boolean;
};
const COLUMNS = 'guild_id::text, since, code, probes, next_probe_at, notified';
const view = (r: Row): GuildOutage => ({
  guildId: r.guild_id,
  since: r.since,
  code: r.code,
  probes: r.probes,
  nextProbeAt: r.next_probe_at,
  notified: r.notified,
});

/**
 * The platform answered `code` for the guild: opens its outage with the first probe a minute away.
 * Returns the outage and whether this call opened it (a second link meeting it the same moment does not).
 */
export async function openGuildOutage(
  db: Queryable,
  guildId: string,
  code: number,
): Promise<{ outage: GuildOutage; opened: boolean }> {
  const { rows } = await db.query<Row & { opened: boolean }>(
    `INSERT INTO guild_outage AS o (guild_id, code, next_probe_at) VALUES ($1, $2, localtimestamp(3) + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (guild_id) DO UPDATE SET code = o.code
     RETURNING ${COLUMNS}, (xmax = 0) AS opened`,
    [guildId, code, probeDelayMs(0)],
  );
  return { outage: view(rows[0]!), opened: rows[0]!.opened };
}

export async function findGuildOutage(db: Queryable, guildId: string): Promise<GuildOutage | null> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM guild_outage WHERE guild_id = $1`, [guildId]);
  return rows[0] ? view(rows[0]) : null;
}

/** Outages among `guildIds` (every outage when omitted), by guild id. */
export async function guildOutages(db: Queryable, guildIds?: readonly string[]): Promise<Map<string, GuildOutage>> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM guild_outage WHERE $1::bigint[] IS NULL OR guild_id = ANY($1::bigint[]) ORDER BY guild_id`,
    [guildIds ?? null],
  );
  return new Map(rows.map((r) => [r.guild_id, view(r)]));
}

/**
 * Takes the guild's due probe, if any: one caller wins (the row's next probe moves an hour ahead while it
 * probes, so the guild's other links keep waiting). True: make the probe, then call `probeFailed` or
 * `closeGuildOutage`.
 */
export async function claimGuildProbe(db: Queryable, guildId: string): Promise<boolean> {
  // localtimestamp(3), as every clock in packages/db: a probe made due (release, or a test) is due at once
  // (docs/architecture.md, "The clock in SQL").
  const { rowCount } = await db.query(
    `UPDATE guild_outage SET next_probe_at = localtimestamp(3) + interval '1 hour' WHERE guild_id = $1 AND next_probe_at <= localtimestamp(3)`,
    [guildId],
  );
  return (rowCount ?? 0) > 0;
}

/** The probe met the same refusal: the next one after the growing delay, none once GUILD_PROBES are spent. */
export async function probeFailed(db: Queryable, guildId: string): Promise<GuildOutage | null> {
  const { rows } = await db.query<Row>(
    `UPDATE guild_outage SET probes = probes + 1,
            next_probe_at = CASE WHEN probes + 1 >= $2 THEN NULL ELSE localtimestamp(3) + make_interval(secs => ${backoffExpression('sql', PROBE_BACKOFF, 'probes + 1')} / 1000) END
      WHERE guild_id = $1 RETURNING ${COLUMNS}`,
    [guildId, GUILD_PROBES],
  );
  return rows[0] ? view(rows[0]) : null;
}

/** The bot reaches the guild again: the outage ends. Returns it when there was one (the caller wakes the links). */
export async function closeGuildOutage(db: Queryable, guildId: string): Promise<GuildOutage | null> {
  const { rows } = await db.query<Row>(`DELETE FROM guild_outage WHERE guild_id = $1 RETURNING ${COLUMNS}`, [guildId]);
  return rows[0] ? view(rows[0]) : null;
}

/**
 * Marks the outage announced. True only for the first caller of an outage, who then tells the plugins
 * and the owner (once per outage, whichever link, reconcile or drift poll met it first).
 */
export async function markOutageAnnounced(db: Queryable, guildId: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE guild_outage SET notified = true WHERE guild_id = $1 AND NOT notified', [
    guildId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Guilds the bot cannot reach that still have enabled links (the worker's rolelink_guilds_unavailable gauge). */
export async function countGuildOutages(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM guild_outage o WHERE EXISTS (SELECT 1 FROM role_link l WHERE l.guild_id = o.guild_id AND l.enabled)',
  );
  return rows[0]?.n ?? 0;
}

/** A claimed probe that could not be sent (rate limit): due again at once. */
export async function releaseGuildProbe(db: Queryable, guildId: string): Promise<void> {
  await db.query(
    'UPDATE guild_outage SET next_probe_at = localtimestamp(3) WHERE guild_id = $1 AND next_probe_at IS NOT NULL',
    [guildId],
  );
}
