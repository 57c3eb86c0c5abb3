import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { PrismaClient } from '../generated/client';
import type { Queryable } from './queryable';

export type { PrismaClient };
export type { Prisma } from '../generated/client';

export type Db = {
  /**
   * Prisma's client over the same pool, loaded on first use. No repository takes it (they all take a
   * Queryable, below); it is kept for what its client reads best: test fixtures and assertions
   * (`db.prisma.roleLink.create({...})`). docs/architecture.md says why.
   */
  prisma: PrismaClient;
  /** The handle every repository function takes (a Queryable): statements, transactions, COPY, streams. */
  pool: Pool;
  /**
   * The pool for session-bound work: session advisory locks (a link's sync slice, the broker's event
   * locks, the outbox sweep) and the API's presence for its Idempotency-Key claims. `pool` itself unless
   * a session URL was given (DATABASE_SESSION_URL: PostgreSQL directly, when DATABASE_URL is a pooler in
   * transaction mode, which hands each transaction to any server connection; docs/pgbouncer.md).
   */
  session: Pool;
  close(): Promise<void>;
};

/** The query string parameter that marks DATABASE_URL as a transaction-mode pooler (Prisma's spelling). */
const POOLER_PARAM = 'pgbouncer';

/**
 * DATABASE_URL without `pgbouncer=true`, and whether it was there. PostgreSQL would refuse it as a
 * startup parameter; it tells this client that named prepared statements cannot be used: a transaction
 * pooler (PgBouncer before 1.21, or without max_prepared_statements) runs the statement prepared on one
 * server connection's session, then its execution on another, which has no such statement.
 */
export function poolerUrl(connectionString: string): { url: string; transactionPooler: boolean } {
  const url = new URL(connectionString);
  const transactionPooler = url.searchParams.get(POOLER_PARAM) === 'true';
  url.searchParams.delete(POOLER_PARAM);
  return { url: url.toString(), transactionPooler };
}

/** A pg client that sends every statement unnamed (parsed again each time): for a transaction pooler. */
class UnnamedStatementClient extends Client {}
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
const clientQuery = Client.prototype.query as (this: Client, ...args: unknown[]) => unknown;
UnnamedStatementClient.prototype.query = function (this: Client, config: unknown, ...rest: unknown[]) {
  if (config !== null && typeof config === 'object' && 'name' in config && 'text' in config) {
    const { name: _name, ...unnamed } = config as { name: unknown; text: string };
    return clientQuery.call(this, unnamed, ...rest);
  }
  return clientQuery.call(this, config, ...rest);
} as Client['query'];

/**
 * One pg pool shared by Prisma (through its driver adapter) and the raw-SQL repositories. Its connections
 * carry an application_name of their own (`rolelink <12 hex>`), so PostgreSQL can tell whether this pool's
 * process is still connected: an Idempotency-Key claim records it and is free again once no connection
 * of its claimant is left (idempotency.repo.ts), e.g. after the API was killed in the middle of a commit.
 */
export function createDb(
  connectionString: string,
  options: { max?: number; sessionUrl?: string; sessionMax?: number } = {},
): Db {
  const applicationName = `rolelink ${randomBytes(6).toString('hex')}`;
  const { url, transactionPooler } = poolerUrl(connectionString);
  const pool = newPool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: applicationName,
    ...(transactionPooler ? { Client: UnnamedStatementClient } : {}),
  });
  // Both pools carry the same application_name: an Idempotency-Key claim made on the pooler names it, and
  // the session pool's connections show it in pg_stat_activity while this process lives.
  const session =
    options.sessionUrl && options.sessionUrl !== connectionString
      ? newPool({
          connectionString: options.sessionUrl,
          max: options.sessionMax ?? 4,
          application_name: applicationName,
        })
      : pool;
  let prisma: PrismaClient | null = null;
  let closed: Promise<void> | null = null;
  return {
    get prisma() {
      return (prisma ??= newPrismaClient(pool));
    },
    pool,
    session,
    close: () =>
      (closed ??= (prisma?.$disconnect() ?? Promise.resolve())
        .then(() => pool.end())
        .then(() => (session === pool ? undefined : session.end()))),
  };
}

function newPool(config: ConstructorParameters<typeof Pool>[0]): Pool {
  const pool = new Pool(config);
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // A client checked out of the pool (mid-transaction, between statements) emits 'error' when its server
  // goes away; with no listener, Node turns that into an uncaught exception and the whole process dies
  // (a PostgreSQL restart killed the API: test/reliability/postgres-restart). The statement in flight
  // rejects on its own, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Prisma's client and driver adapter, loaded on first use. No service queries through Prisma (every
 * statement is a repository's, on the pool), and loading the two at start cost every process start-up
 * time and idle memory (docs/benchmarks.md).
 */
function newPrismaClient(pool: Pool): PrismaClient {
  /* eslint-disable @typescript-eslint/no-require-imports -- a require() here is what keeps the load lazy: an import would run at start */
  const { PrismaClient: Client } = require('../generated/client') as typeof import('../generated/client');
  const { PrismaPg } = require('@prisma/adapter-pg') as typeof import('@prisma/adapter-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Client({ adapter: new PrismaPg(pool) });
}

/** The readiness probe of every service: one round trip on a pooled connection. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
