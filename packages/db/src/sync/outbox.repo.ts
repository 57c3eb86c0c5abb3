import type { Queryable } from '../client/queryable';

/**
 * Links marked "sync wanted" and not yet synced, whose last mark is older than `olderThanMs` (younger
 * marks are still on the queue's fast path). The sweeper re-enqueues them; enqueueing is deduplicated
 * per link, so a link that is already queued costs nothing.
 */
export async function linksWantingSync(db: Queryable, olderThanMs: number, limit = 1000): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM role_link
     WHERE sync_wanted_seq > sync_done_seq AND updated_at < now() - $1 * interval '1 millisecond'
     ORDER BY role_link.id LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.id);
}
