import { randomUUID } from 'node:crypto';
import { UPLOAD_TTL_MS } from '@rolelink/domain';
import { inTransaction, type Queryable } from '../client/queryable';
import { bigintArrayLiteral, idArrayParams, storedIdRows, toStored } from '../client/user-id';

export async function createUpload(db: Queryable, linkId: string): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO upload_session (id, link_id, created_at, expires_at) VALUES ($1, $2, now(), now() + $3 * interval '1 millisecond')`,
    [id, linkId, UPLOAD_TTL_MS],
  );
  return id;
}

/**
 * Stages one chunk and bumps the session counters in one transaction. The session row is locked, so a
 * chunk racing a commit or cancel either lands before it or finds the session gone (404).
 * `users` counts IDs before deduplication (spec 2.3).
 */
export function addChunk(
  db: Queryable,
  linkId: string,
  uploadId: string,
  ids: readonly string[],
  expiries?: { ids: readonly string[]; at: readonly string[] } | null,
): Promise<{ chunks: number; users: number } | null> {
  return inTransaction(db, async (c) => {
    const open = await c.query(
      'SELECT 1 FROM upload_session WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now() FOR UPDATE',
      [uploadId, linkId],
    );
    if (open.rowCount !== 1) return null;
    if (expiries?.ids.length) {
      // Staged with their expiry (the commit applies it, list-expiry.repo setReplaceExpiries); a plain chunk takes the statement below.
      await c.query(
        `INSERT INTO upload_staged (link_id, upload_id, user_id, expires_at)
         SELECT $5, $1, ${toStored('x')}, e.at FROM unnest($2::numeric[]) x
         LEFT JOIN (SELECT i, max(a) AS at FROM unnest($3::numeric[], $4::timestamptz[]) AS y(i, a) GROUP BY i) e ON e.i = x`,
        [uploadId, bigintArrayLiteral(ids), bigintArrayLiteral(expiries.ids), expiries.at, linkId],
      );
    } else if (ids.length)
      await c.query(
        `INSERT INTO upload_staged (link_id, upload_id, user_id) SELECT $4, $1, user_id FROM (${storedIdRows('$2', '$3')}) s`,
        [uploadId, ...idArrayParams(ids), linkId],
      );
    const { rows } = await c.query<{ chunks: number; users: number }>(
      'UPDATE upload_session SET chunks = chunks + 1, users = users + $2 WHERE id = $1 RETURNING chunks, users',
      [uploadId, ids.length],
    );
    return rows[0]!;
  });
}

/** Cancels an open session; its staged rows go to the GC. False when unknown, closed or expired. */
export async function cancelUpload(db: Queryable, linkId: string, uploadId: string): Promise<boolean> {
  const r = await db.query(
    'UPDATE upload_session SET closed_at = now() WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now()',
    [uploadId, linkId],
  );
  return r.rowCount === 1;
}

const GC_BATCH = 50_000;

/**
 * Deletes staged rows of closed or expired sessions in bounded batches (a 30M-row staging set must not
 * become one giant transaction), then the session rows themselves. Returns rows deleted. A deleted link's
 * staged rows go with its other list rows (link-purge.repo.ts), so every delete here names its link.
 */
export async function collectUploadGarbage(db: Queryable, maxRows = 1_000_000): Promise<number> {
  const { rows } = await db.query<{ id: string; link_id: string }>(
    'SELECT id, link_id::text FROM upload_session WHERE closed_at IS NOT NULL OR expires_at <= now()',
  );
  let deleted = 0;
  for (const { id, link_id } of rows) {
    for (;;) {
      if (deleted >= maxRows) return deleted;
      const r = await db.query(
        'DELETE FROM upload_staged WHERE link_id = $1 AND ctid = ANY(ARRAY(SELECT ctid FROM upload_staged WHERE link_id = $1 AND upload_id = $2 LIMIT $3))',
        [link_id, id, GC_BATCH],
      );
      deleted += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < GC_BATCH) break;
    }
  }
  await db.query(
    `DELETE FROM upload_session u WHERE (u.closed_at IS NOT NULL OR u.expires_at <= now())
       AND NOT EXISTS (SELECT 1 FROM upload_staged s WHERE s.link_id = u.link_id AND s.upload_id = u.id)`,
  );
  return deleted;
}
