import type { Queryable } from './queryable';

const PURGE_BATCH = 50_000;

/**
 * Deletes the list, staging and applied rows of deleted links in bounded batches (a 30M-user link must
 * not become one giant delete). Returns the rows deleted; stops after `maxRows` to keep one sweep short.
 */
export async function purgeDeletedLinks(db: Queryable, maxRows = 1_000_000): Promise<number> {
  const { rows } = await db.query<{ id: string }>('SELECT link_id::text AS id FROM link_purge ORDER BY deleted_at LIMIT 100');
  let deleted = 0;
  for (const { id } of rows) {
    for (const table of ['link_user', 'applied_member', 'list_change', 'member_change']) {
      for (;;) {
        if (deleted >= maxRows) return deleted;
        const r = await db.query(
          `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE link_id = $1 LIMIT $2))`,
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
