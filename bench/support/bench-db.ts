// What every benchmark needs to make scratch databases: where PostgreSQL and Redis are, and a migrated
// database made with the project's own migration command.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';

export const ROOT = path.resolve(__dirname, '..', '..');
export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function dbUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Creates database `name` and applies the migrations to it; returns its URL. */
export async function createMigratedDb(name: string): Promise<string> {
  await admin(`CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  execFileSync(
    process.execPath,
    ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', 'scripts/migrate.ts', 'deploy'],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
      stdio: 'pipe',
    },
  );
  return url;
}
