import { randomUUID } from 'node:crypto';
import { UPLOAD_TTL_MS } from '@rolelink/domain';
import { inTransaction, type Queryable } from './queryable';
import { bigintArrayLiteral, idArrayParams, storedIdRows, toStored } from './user-id';

export async function createUpload(db: Queryable, linkId: string): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO upload_session (id, link_id, created_at, expires_at) VALUES ($1, $2, now(), now() + $3 * interval '1 millisecond')`, [id, linkId, UPLOAD_TTL_MS]);
  return id;
}

/**
 * Stages one chunk and bumps the session counters in one transaction. The session row is locked, so a
 * chunk racing a commit or cancel either lands before it or finds the session gone (404).
 * `users` counts IDs before deduplication (spec 2.3).
 */
export function addChunk(db: Queryable, linkId: string, uploadId: string, ids: readonly string[], expiries?: { ids: readonly string[]; at: readonly string[] } | null): Promise<{ chunks: number; users: number } | null> {
  return inTransaction(db, async (c) => {
    const open = await c.query('SELECT 1 FROM upload_session WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now() FOR UPDATE', [uploadId, linkId]);
    if (open.rowCount !== 1) return null;
    if (expiries?.ids.length) {
      // Staged with their expiry (the commit applies it, list-expiry.repo setReplaceExpiries); a plain chunk takes the statement below.
      await c.query(
        `INSERT INTO upload_staged (upload_id, user_id, expires_at)
         SELECT $1, ${toStored('x')}, e.at FROM unnest($2::numeric[]) x
         LEFT JOIN (SELECT i, max(a) AS at FROM unnest($3::numeric[], $4::timestamptz[]) AS y(i, a) GROUP BY i) e ON e.i = x`,
        [uploadId, bigintArrayLiteral(ids), bigintArrayLiteral(expiries.ids), expiries.at],
      );
    } else if (ids.length) await c.query(`INSERT INTO upload_staged (upload_id, user_id) SELECT $1, user_id FROM (${storedIdRows('$2', '$3')}) s`, [uploadId, ...idArrayParams(ids)]);
    const { rows } = await c.query<{ chunks: number; users: number }>('UPDATE upload_session SET chunks = chunks + 1, users = users + $2 WHERE id = $1 RETURNING chunks, users', [uploadId, ids.length]);
    return rows[0]!;
  });
}

/** Cancels an open session; its staged rows go to the GC. False when unknown, closed or expired. */
export async function cancelUpload(db: Queryable, linkId: string, uploadId: string): Promise<boolean> {
  const r = await db.query('UPDATE upload_session SET closed_at = now() WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now()', [uploadId, linkId]);
  return r.rowCount === 1;
}

const GC_BATCH = 50_000;

/**
 * Deletes staged rows of closed, expired or vanished sessions in bounded batches (a 30M-row staging set
 * must not become one giant transaction), then the session rows themselves. Returns rows deleted.
 */
export async function collectUploadGarbage(db: Queryable, maxRows = 1_000_000): Promise<number> {
  // Loose index scan: one index probe per distinct upload id instead of reading every staged row.
  const { rows } = await db.query<{ upload_id: string }>(
    `WITH RECURSIVE ids AS (
       (SELECT upload_id FROM upload_staged ORDER BY upload_id LIMIT 1)
       UNION ALL
       SELECT (SELECT s.upload_id FROM upload_staged s WHERE s.upload_id > ids.upload_id ORDER BY s.upload_id LIMIT 1)
       FROM ids WHERE ids.upload_id IS NOT NULL)
     SELECT ids.upload_id FROM ids
     LEFT JOIN upload_session u ON u.id = ids.upload_id
     WHERE ids.upload_id IS NOT NULL AND (u.id IS NULL OR u.closed_at IS NOT NULL OR u.expires_at <= now())`,
  );
  let deleted = 0;
  for (const { upload_id } of rows) {
    for (;;) {
      if (deleted >= maxRows) return deleted;
      const r = await db.query('DELETE FROM upload_staged WHERE ctid = ANY(ARRAY(SELECT ctid FROM upload_staged WHERE upload_id = $1 LIMIT $2))', [upload_id, GC_BATCH]);
      deleted += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < GC_BATCH) break;
    }
  }
  await db.query(
    `DELETE FROM upload_session u WHERE (u.closed_at IS NOT NULL OR u.expires_at <= now())
       AND NOT EXISTS (SELECT 1 FROM upload_staged s WHERE s.upload_id = u.id)`,
  );
  return deleted;
}
