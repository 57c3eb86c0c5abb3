import type { Pool } from 'pg';
import { resealToken, type TokenKeyring } from '@rolelink/domain';

/** The columns that hold plugin tokens encrypted under ROLELINK_SECRET_KEY(S), each keyed by a bigint. */
export const TOKEN_COLUMNS = [
  { table: 'role_link', key: 'id' },
  { table: 'plugin_event_link', key: 'link_id' },
] as const;

export type ReencryptTable = {
  table: string;
  rows: number;
  reencrypted: number;
  alreadyCurrent: number;
  /** Rows no configured key opens (first 20 keys), left untouched: the run exits 1 while any is left. */
  failed: number;
  failedKeys: string[];
};

export type ReencryptReport = { newestKey: string; tables: ReencryptTable[] };

/**
 * Moves every stored token to the newest key, `batchSize` rows at a time in primary-key order, each batch
 * in its own short transaction. A row is rewritten only when it is not already under the newest key, and
 * only if it still holds the ciphertext that was read (a link deleted or re-keyed meanwhile is left as
 * it is), so the run is idempotent and a run that stopped half-way is finished by running it again.
 */
export async function reencryptTokens(
  pool: Pool,
  ring: TokenKeyring,
  options: { batchSize: number; progress?: (line: string) => void },
): Promise<ReencryptReport> {
  const tables: ReencryptTable[] = [];
  for (const { table, key } of TOKEN_COLUMNS) {
    const total = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    const report: ReencryptTable = { table, rows: 0, reencrypted: 0, alreadyCurrent: 0, failed: 0, failedKeys: [] };
    let after = '-1';
    for (;;) {
      const { rows } = await pool.query<{ k: string; ct: Buffer }>(
        `SELECT ${key}::text AS k, token_ciphertext AS ct FROM ${table} WHERE ${key} > $1 ORDER BY ${key} LIMIT $2`,
        [after, options.batchSize],
      );
      if (rows.length === 0) break;
      after = rows.at(-1)!.k;
      const updates: { k: string; old: Buffer; next: Buffer }[] = [];
      for (const row of rows) {
        report.rows += 1;
        let next: Buffer | null;
        try {
          next = resealToken(row.ct, ring);
        } catch {
          report.failed += 1;
          if (report.failedKeys.length < 20) report.failedKeys.push(row.k);
          continue;
        }
        if (next === null) report.alreadyCurrent += 1;
        else updates.push({ k: row.k, old: row.ct, next });
      }
      if (updates.length > 0) report.reencrypted += await writeBatch(pool, table, key, updates);
      options.progress?.(
        `${table}: ${report.rows} of ${total} checked, ${report.reencrypted} re-encrypted, ${report.alreadyCurrent} already current${report.failed ? `, ${report.failed} unreadable` : ''}`,
      );
    }
    tables.push(report);
  }
  return { newestKey: ring.keys[0]!.id ?? '(ROLELINK_SECRET_KEY, no ID)', tables };
}

/** One batch's rewrites in one transaction; returns how many rows still held what was read. */
async function writeBatch(
  pool: Pool,
  table: string,
  key: string,
  updates: { k: string; old: Buffer; next: Buffer }[],
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    let written = 0;
    for (const u of updates) {
      const r = await client.query(
        `UPDATE ${table} SET token_ciphertext = $1 WHERE ${key} = $2::bigint AND token_ciphertext = $3`,
        [u.next, u.k, u.old],
      );
      written += r.rowCount ?? 0;
    }
    await client.query('COMMIT');
    return written;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
