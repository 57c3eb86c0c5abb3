import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/client';
import type { Queryable } from './queryable';

export { PrismaClient };
export type { Prisma } from './generated/client';

export type Db = {
  prisma: PrismaClient;
  /** Plain pg pool for the bulk paths Prisma cannot express (COPY, unnest, streamed cursors). */
  pool: Pool;
  close(): Promise<void>;
};

/** One pg pool shared by Prisma (through its driver adapter) and the raw-SQL repositories. */
export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new Pool({ connectionString, max: options.max ?? 10 });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // A client checked out of the pool (mid-transaction, between statements) emits 'error' when its server
  // goes away; with no listener, Node turns that into an uncaught exception and the whole process dies
  // (a PostgreSQL restart killed the API: test/reliability/postgres-restart). The statement in flight
  // rejects on its own, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed: Promise<void> | null = null;
  return {
    prisma,
    pool,
    close: () => (closed ??= prisma.$disconnect().then(() => pool.end())),
  };
}

/** The readiness probe of every service: one round trip on a pooled connection. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
