import { Client } from 'pg';
import { createDb, type Db } from '@rolelink/db/client';
import { ADMIN_DATABASE_URL, databaseUrl, stampedName, templateDb } from './env';

export type TestDb = Db & { url: string; name: string; drop(): Promise<void> };

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, migrated database of its own (cloned from the run's template). */
export async function createTestDb(): Promise<TestDb> {
  const name = stampedName('t');
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateDb()}`));
  const url = databaseUrl(name);
  const db = createDb(url);
  return {
    ...db,
    url,
    name,
    async drop() {
      await db.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Empties every table between tests of one file (whatever tables later migrations add). */
export async function truncateAll(db: Db): Promise<void> {
  const { rows } = await db.pool.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'",
  );
  await db.pool.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`);
}
