import type { Queryable } from '../client/queryable';

/** How far behind the platform the links are, in a few numbers of bounded cardinality (the sync lag metrics). */
export type SyncLag = {
  /** Links whose outbox is ahead of what the worker has answered (sync_wanted_seq > sync_done_seq). */
  linksBehind: number;
  /** pending_count summed over links: the changes the worker measured as still to make (GET /users meta). */
  pendingChanges: number;
  /** The largest pending_count of one link. */
  maxLinkPendingChanges: number;
  /** Age of the oldest journal entry no pass has applied yet, over all links; 0 when none waits. */
  oldestUnappliedSeconds: number;
};

/**
 * One statement, cheap at scrape time: role_link has one row per link (a scan of links, not of users), and
 * each link that is behind costs one probe of list_change's primary key (link_id, seq, …) for its first
 * entry after sync_done_seq — the oldest change not yet applied. The journal is compacted as the worker
 * applies it, so entries at or below sync_done_seq that wait for compaction do not count.
 */
export async function readSyncLag(db: Queryable): Promise<SyncLag> {
  const { rows } = await db.query<SyncLag>(
    `SELECT count(*) FILTER (WHERE l.sync_wanted_seq > l.sync_done_seq)::int AS "linksBehind",
            coalesce(sum(l.pending_count), 0)::float8 AS "pendingChanges",
            coalesce(max(l.pending_count), 0)::int AS "maxLinkPendingChanges",
            coalesce(extract(epoch FROM clock_timestamp() - min(o.created_at)), 0)::float8 AS "oldestUnappliedSeconds"
       FROM role_link l
       LEFT JOIN LATERAL (
         SELECT c.created_at FROM list_change c WHERE c.link_id = l.id AND c.seq > l.sync_done_seq ORDER BY c.seq LIMIT 1
       ) o ON l.sync_wanted_seq > l.sync_done_seq
      WHERE l.sync_wanted_seq > l.sync_done_seq OR l.pending_count > 0`,
  );
  return rows[0]!;
}
