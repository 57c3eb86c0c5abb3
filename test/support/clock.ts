import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` in a transaction whose clock (`now()`, fixed for the transaction) lies in the second half of
 * its millisecond, and rolls it back. There a time written as the plain clock is stored (a timestamp(3),
 * rounded) later than that same clock, so a statement that compares with the plain clock finds a value made
 * due "now" not due yet: every time, not once in a few thousand runs (docs/architecture.md, "The clock in SQL").
 */
export async function inLateHalfMillisecond<T>(pool: Pool, work: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    // Half of all transactions start in the second half of their millisecond: a few tries at most.
    for (;;) {
      await c.query('BEGIN');
      const { rows } = await c.query<{ late: boolean }>(
        'SELECT extract(microseconds FROM now())::bigint % 1000 >= 500 AS late',
      );
      if (rows[0]!.late) break;
      await c.query('ROLLBACK');
    }
    return await work(c);
  } finally {
    await c.query('ROLLBACK').finally(() => c.release());
  }
}
