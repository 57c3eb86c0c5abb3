import type { Queryable } from '../client/queryable';

// The bot application as the platform showed it (`bot_application`; docs/sync-engine.md "When
// the platform refuses"). One row per bot token, keyed by the token's hash (`applicationKey` in
// @rolelink/platform-client), so the worker that found the problem and the dashboard that shows it meet.

/**
 * The first 403 50001 on a member listing of a guild the bot is in: the Server Members intent is off.
 * Returns true when this call set it (it was not already known), so the caller logs and counts it once.
 */
export async function markMembersListingBlocked(db: Queryable, appKey: string): Promise<boolean> {
  const { rows } = await db.query<{ fresh: boolean }>(
    `WITH old AS (SELECT members_blocked_at FROM bot_application WHERE app_key = $1)
     INSERT INTO bot_application AS a (app_key, members_blocked_at, updated_at) VALUES ($1, localtimestamp(3), localtimestamp(3))
     ON CONFLICT (app_key) DO UPDATE SET members_blocked_at = COALESCE(a.members_blocked_at, localtimestamp(3)), updated_at = localtimestamp(3)
     RETURNING NOT EXISTS (SELECT 1 FROM old WHERE old.members_blocked_at IS NOT NULL) AS fresh`,
    [appKey],
  );
  return rows[0]?.fresh ?? false;
}

/** A listing succeeded: the intent is on (again). Returns true when it had been marked blocked. */
export async function clearMembersListingBlocked(db: Queryable, appKey: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE bot_application SET members_blocked_at = NULL, updated_at = localtimestamp(3) WHERE app_key = $1 AND members_blocked_at IS NOT NULL',
    [appKey],
  );
  return (rowCount ?? 0) > 0;
}

/** Since when the application cannot list members; null when it can (or nobody has found out otherwise). */
export async function membersListingBlockedSince(db: Queryable, appKey: string): Promise<Date | null> {
  const { rows } = await db.query<{ members_blocked_at: Date | null }>(
    'SELECT members_blocked_at FROM bot_application WHERE app_key = $1',
    [appKey],
  );
  return rows[0]?.members_blocked_at ?? null;
}
