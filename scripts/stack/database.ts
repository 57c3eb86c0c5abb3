import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { runStep } from './steps';

/**
 * What a checkout's stack calls its own on a PostgreSQL or Redis it shares: `<base>_<hash>`
 * of the checkout's path. Two checkouts sharing the database `rolelink` and the
 * queue prefix `rolelink` would have the second adopt the first's demo link (whose token its plugin never
 * received, at the first one's plugin URL) and their workers take each other's jobs.
 */
export function checkoutTag(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 8);
}

/**
 * The application database: the one named in DATABASE_URL when it names one (not the admin database
 * `postgres`); else `rolelink` on the checkout's own embedded server, and `rolelink_<checkoutTag>` on a
 * server that others may use too (`shared`: the tag).
 */
export function appDatabaseUrl(
  adminUrl: string,
  given: string | undefined,
  shared: string | null = null,
): { url: string; name: string } {
  const url = new URL(adminUrl);
  const givenName = given ? decodeURIComponent(new URL(given).pathname.replace(/^\//, '')) : '';
  const name = givenName && givenName !== 'postgres' ? givenName : shared ? `rolelink_${shared}` : 'rolelink';
  url.pathname = `/${encodeURIComponent(name)}`;
  return { url: url.toString(), name };
}

/** The queue prefix: QUEUE_PREFIX when set; else `rolelink` on the stack's own Redis, `rolelink-<checkoutTag>` on a shared one. */
export function stackQueuePrefix(given: string | undefined, shared: string | null): string {
  return given || (shared ? `rolelink-${shared}` : 'rolelink');
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
export async function migrate(
  databaseUrl: string,
  root: string,
  log: (m: string) => void,
  track: (p: { stop(): Promise<unknown> }) => () => void,
): Promise<void> {
  log('applying database migrations (pnpm db:migrate)…');
  await runStep('migrate', 'pnpm', ['--silent', 'db:migrate'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    log,
    track,
    timeoutMs: 180_000,
  });
}
