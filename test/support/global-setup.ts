import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, TEMPLATE_DB, databaseUrl } from './env';

/**
 * Builds one migrated template database per run; each test file then clones it (CREATE DATABASE …
 * TEMPLATE), which takes milliseconds and isolates files from each other completely.
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const root = path.resolve(__dirname, '..', '..');
  execFileSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', 'scripts/migrate.ts', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl(TEMPLATE_DB) },
    stdio: 'pipe',
  });
}
