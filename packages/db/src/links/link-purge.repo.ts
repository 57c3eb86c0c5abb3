import type { Queryable } from '../client/queryable';

const PURGE_BATCH = 50_000;

/**
 * Deletes the list, staging and applied rows of deleted links in bounded batches (a 30M-user link must
 * not become one giant delete). Returns the rows deleted; stops after `maxRows` to keep one sweep short.
 */
export async function purgeDeletedLinks(db: Queryable, maxRows = 1_000_000): Promise<number> {
  // A link whose roles are still being stripped keeps its applied record until the strip is done.
  const { rows } = await db.query<{ id: string }>(
    'SELECT link_id::text AS id FROM link_purge WHERE NOT strip_roles OR stripped_at IS NOT NULL ORDER BY deleted_at LIMIT 100',
  );
  let deleted = 0;
  for (const { id } of rows) {
    for (const table of [
      'link_user',
      'upload_staged',
      'applied_member',
      'list_change',
      'member_change',
      'link_override',
    ]) {
      for (;;) {
        if (deleted >= maxRows) return deleted;
        const r = await db.query(
          `DELETE FROM ${table} WHERE link_id = $1 AND ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE link_id = $1 LIMIT $2))`,
          [id, PURGE_BATCH],
        );
        deleted += r.rowCount ?? 0;
        if ((r.rowCount ?? 0) < PURGE_BATCH) break;
      }
    }
    await db.query('DELETE FROM link_purge WHERE link_id = $1', [id]);
  }
  return deleted;
}

/** Records a deleted link for the purge (in the deleting transaction); with stripRoles the bot strips first. */
export async function recordPurge(
  db: Queryable,
  p: { linkId: string; guildId: string; roleId: string; stripRoles: boolean },
): Promise<void> {
  await db.query(
    'INSERT INTO link_purge (link_id, guild_id, role_id, strip_roles) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [p.linkId, p.guildId, p.roleId, p.stripRoles],
  );
}

/** A deleted link whose granted roles the bot must still remove, or null. */
export async function pendingStrip(db: Queryable, linkId: string): Promise<{ guildId: string; roleId: string } | null> {
  const { rows } = await db.query<{ guild_id: string; role_id: string }>(
    'SELECT guild_id::text, role_id::text FROM link_purge WHERE link_id = $1 AND strip_roles AND stripped_at IS NULL AND guild_id IS NOT NULL',
    [linkId],
  );
  const r = rows[0];
  return r ? { guildId: r.guild_id, roleId: r.role_id } : null;
}

/** The strip is done: the purge may delete the link's rows now. */
export async function finishStrip(db: Queryable, linkId: string): Promise<void> {
  await db.query('UPDATE link_purge SET stripped_at = now() WHERE link_id = $1', [linkId]);
}
