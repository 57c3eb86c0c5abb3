// Where the integration tests find PostgreSQL and Redis: the same variables as the services, with the
// local defaults of this machine. scripts/test.sh starts both when they do not answer.
export const ADMIN_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Set by the global setup for the test workers: this run's own template (runs may overlap). */
export function templateDb(): string {
  const name = process.env.ROLELINK_TEST_TEMPLATE_DB;
  if (!name)
    throw new Error(
      'ROLELINK_TEST_TEMPLATE_DB is not set: run integration tests through jest (its globalSetup makes the template)',
    );
  return name;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Database names carry their creation time so a later run can drop what a killed run left behind. */
export function stampedName(kind: 'tpl' | 't'): string {
  return `rolelink_${kind}_${Math.floor(Date.now() / 1000)}_${Math.random().toString(16).slice(2, 10)}`;
}
