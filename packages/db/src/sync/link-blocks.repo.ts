import type { Queryable } from '../client/queryable';

// A link whose role the bot may not change (`link_sync_state.blocked_reason`; docs/sync-engine.md
// "A role that became unmanageable"): the first refusal stops the link's slice and records why, so the
// dashboard and `rolelink link show` say it once instead of a stream of per-user failures.

/**
 * Why: a RoleAccessProblem of packages/domain role-access.ts (`no_manage_roles`, `above_bot`, `managed`,
 * `unknown_role`), `mfa_required` (60003: the application owner must enable 2FA), or `refused` (403 50013
 * while the guild's roles say the bot may manage the role: a channel or platform rule we cannot see).
 */
export type LinkBlockReason = 'no_manage_roles' | 'above_bot' | 'managed' | 'unknown_role' | 'mfa_required' | 'refused';

export type LinkBlock = { reason: LinkBlockReason; since: Date };

/**
 * Records why the link is blocked. Returns true when it was not blocked before (the caller tells the
 * plugin and the owner once); a changed reason updates it without a second announcement.
 */
export async function blockLink(db: Queryable, linkId: string, reason: LinkBlockReason): Promise<boolean> {
  const { rows } = await db.query<{ fresh: boolean }>(
    `WITH old AS (SELECT blocked_reason FROM link_sync_state WHERE link_id = $1)
     INSERT INTO link_sync_state AS s (link_id, blocked_reason, blocked_since) VALUES ($1, $2, localtimestamp(3))
     ON CONFLICT (link_id) DO UPDATE SET blocked_reason = $2, blocked_since = COALESCE(s.blocked_since, localtimestamp(3))
     RETURNING NOT EXISTS (SELECT 1 FROM old WHERE old.blocked_reason IS NOT NULL) AS fresh`,
    [linkId, reason],
  );
  return rows[0]?.fresh ?? false;
}

/** The role can be changed again. Returns the block that ended, if there was one. */
export async function unblockLink(db: Queryable, linkId: string): Promise<LinkBlock | null> {
  const { rows } = await db.query<{ reason: LinkBlockReason; since: Date }>(
    `UPDATE link_sync_state s SET blocked_reason = NULL, blocked_since = NULL FROM (SELECT blocked_reason, blocked_since FROM link_sync_state WHERE link_id = $1 FOR UPDATE) old
      WHERE s.link_id = $1 AND old.blocked_reason IS NOT NULL RETURNING old.blocked_reason AS reason, old.blocked_since AS since`,
    [linkId],
  );
  return rows[0] ?? null;
}

export async function findLinkBlock(db: Queryable, linkId: string): Promise<LinkBlock | null> {
  const { rows } = await db.query<{ reason: LinkBlockReason; since: Date }>(
    'SELECT blocked_reason AS reason, blocked_since AS since FROM link_sync_state WHERE link_id = $1 AND blocked_reason IS NOT NULL',
    [linkId],
  );
  return rows[0] ?? null;
}

/** Blocked links by reason (the worker's rolelink_links_blocked gauge). */
export async function countBlockedLinks(db: Queryable): Promise<{ reason: string; count: number }[]> {
  const { rows } = await db.query<{ reason: string; count: number }>(
    'SELECT blocked_reason AS reason, count(*)::int AS count FROM link_sync_state WHERE blocked_reason IS NOT NULL GROUP BY blocked_reason ORDER BY 1',
  );
  return rows;
}

/** A guild's blocked links (enabled ones), with the role each concerns: what a check that saw a fix may retry. */
export async function blockedLinksOfGuild(
  db: Queryable,
  guildId: string,
): Promise<{ linkId: string; roleId: string; reason: LinkBlockReason }[]> {
  const { rows } = await db.query<{ linkId: string; roleId: string; reason: LinkBlockReason }>(
    `SELECT l.id::text AS "linkId", l.role_id::text AS "roleId", s.blocked_reason AS reason
       FROM role_link l JOIN link_sync_state s ON s.link_id = l.id
      WHERE l.guild_id = $1 AND l.enabled AND s.blocked_reason IS NOT NULL ORDER BY l.id`,
    [guildId],
  );
  return rows;
}

/**
 * A check saw the cause gone: the link's back-off ends now, so its next slice re-checks at once (the
 * worker ends the block itself, on the roles or its first accepted call). The count stays: a cause that
 * turns out not gone backs off from where it was.
 */
export async function endLinkBackoff(db: Queryable, linkId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE link_sync_state SET backoff_until = NULL WHERE link_id = $1 AND backoff_until IS NOT NULL',
    [linkId],
  );
  return (rowCount ?? 0) > 0;
}
