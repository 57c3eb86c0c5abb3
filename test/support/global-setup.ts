import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl, stampedName } from './env';

const STALE_AFTER_S = 3 * 60 * 60;

/**
 * Builds one migrated template database for this run; each test file then clones it (CREATE DATABASE …
 * TEMPLATE), which takes milliseconds and isolates files completely. The template's name is this run's
 * own, so overlapping runs (several developers, CI) never touch each other's.
 */
export default async function globalSetup(): Promise<void> {
  const name = stampedName('tpl');
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await dropStale(admin);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const root = path.resolve(__dirname, '..', '..');
  execFileSync(
    process.execPath,
    ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', 'scripts/migrate.ts', 'deploy'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl(name) },
      stdio: 'pipe',
    },
  );
  // Workers are started after the global setup and inherit this.
  process.env.ROLELINK_TEST_TEMPLATE_DB = name;
}

async function dropStale(admin: Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname ~ '^rolelink_(tpl|t)_[0-9]+_'",
  );
  const now = Math.floor(Date.now() / 1000);
  for (const { datname } of rows) {
    const created = Number(datname.split('_')[2]);
    if (now - created > STALE_AFTER_S)
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
  }
}
