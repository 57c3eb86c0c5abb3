import { Client } from 'pg';
import { runStep } from './steps';

/**
 * The application database: the one named in DATABASE_URL when it names one, else `rolelink` on the
 * same server (DATABASE_URL may point at the admin database `postgres`, as the embedded one does).
 */
export function appDatabaseUrl(adminUrl: string, given: string | undefined): { url: string; name: string } {
  const url = new URL(adminUrl);
  const givenName = given ? decodeURIComponent(new URL(given).pathname.replace(/^\//, '')) : '';
  const name = givenName && givenName !== 'postgres' ? givenName : 'rolelink';
  url.pathname = `/${encodeURIComponent(name)}`;
  return { url: url.toString(), name };
}

export async function ensureDatabase(adminUrl: string, name: string, log: (m: string) => void): Promise<void> {
  const admin = new URL(adminUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      log(`created database ${name}`);
    } else {
      log(`database ${name} exists`);
    }
  } finally {
    await client.end();
  }
}

/** `pnpm db:migrate` against the application database, its lines shown as progress. */
export async function migrate(databaseUrl: string, root: string, log: (m: string) => void, track: (p: { stop(): Promise<unknown> }) => () => void): Promise<void> {
  log('applying database migrations (pnpm db:migrate)…');
  await runStep('migrate', 'pnpm', ['--silent', 'db:migrate'], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, log, track, timeoutMs: 180_000 });
}
