import type { Pool, PoolClient } from 'pg';

/**
 * The one handle every repository function takes: the pool (each statement on whichever connection is
 * free; a function that needs a transaction opens its own) or a client inside the caller's transaction
 * (the function's statements join it). Callers never choose between access styles per call.
 */
export type Queryable = Pool | PoolClient;

/** A pool has no `release`; a checked-out client does. (`instanceof` breaks across two copies of pg.) */
function isClient(db: Queryable): db is PoolClient {
  return 'release' in db;
}

let savepoints = 0;

/**
 * Runs fn in one transaction; rolls back on any error. On a pool: a transaction of its own, on one
 * connection, at `isolation`. On a client: a savepoint inside the caller's transaction (whose isolation
 * level applies), so a function that needs atomicity composes with its caller's writes and a failure
 * undoes only its own part. A client outside any transaction is refused by PostgreSQL (SAVEPOINT can only
 * be used in transaction blocks): a caller that holds a client holds it for a transaction.
 */
export function inTransaction<T>(
  db: Queryable,
  fn: (c: PoolClient) => Promise<T>,
  isolation = 'READ COMMITTED',
): Promise<T> {
  return run(db, fn, isolation, 'commit');
}

/**
 * Runs fn in a transaction that is always rolled back (a dry run: whatever fn writes, temporary tables
 * included, goes with it), on a pool or, as a savepoint, inside the caller's transaction.
 */
export function inRolledBackTransaction<T>(
  db: Queryable,
  fn: (c: PoolClient) => Promise<T>,
  isolation = 'READ COMMITTED',
): Promise<T> {
  return run(db, fn, isolation, 'rollback');
}

async function run<T>(
  db: Queryable,
  fn: (c: PoolClient) => Promise<T>,
  isolation: string,
  end: 'commit' | 'rollback',
): Promise<T> {
  if (isClient(db)) return inSavepoint(db, fn, end);
  const client = await db.connect();
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    const result = await fn(client);
    await client.query(end === 'commit' ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function inSavepoint<T>(
  client: PoolClient,
  fn: (c: PoolClient) => Promise<T>,
  end: 'commit' | 'rollback',
): Promise<T> {
  const name = `rl_sp_${++savepoints}`;
  await client.query(`SAVEPOINT ${name}`);
  try {
    const result = await fn(client);
    if (end === 'rollback') await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await client.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (err) {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`).catch(() => undefined);
    throw err;
  }
}
