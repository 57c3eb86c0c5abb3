import type { Pool, PoolClient } from 'pg';

export type Queryable = Pool | PoolClient;

/** Runs fn in one transaction on one pooled connection; rolls back on any error. */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>, isolation = 'READ COMMITTED'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
