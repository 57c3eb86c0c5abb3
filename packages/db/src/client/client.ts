import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
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
  close(): Promise<void>;
};

/**
 * One pg pool shared by Prisma (through its driver adapter) and the raw-SQL repositories. Its connections
 * carry an application_name of their own (`rolelink <12 hex>`), so PostgreSQL can tell whether this pool's
 * process is still connected: an Idempotency-Key claim records it and is free again once no connection
 * of its claimant is left (idempotency.repo.ts), e.g. after the API was killed in the middle of a commit.
 */
export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: `rolelink ${randomBytes(6).toString('hex')}`,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // A client checked out of the pool (mid-transaction, between statements) emits 'error' when its server
  // goes away; with no listener, Node turns that into an uncaught exception and the whole process dies
  // (a PostgreSQL restart killed the API: test/reliability/postgres-restart). The statement in flight
  // rejects on its own, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  let prisma: PrismaClient | null = null;
  let closed: Promise<void> | null = null;
  return {
    get prisma() {
      return (prisma ??= newPrismaClient(pool));
    },
    pool,
    close: () => (closed ??= (prisma?.$disconnect() ?? Promise.resolve()).then(() => pool.end())),
  };
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
