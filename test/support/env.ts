// Where the integration tests find PostgreSQL and Redis: the same variables as the services, with the
// local defaults of this machine. scripts/test.sh starts both when they do not answer.
export const ADMIN_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_DB = 'rolelink_test_template';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
