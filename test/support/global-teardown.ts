import { Client } from 'pg';
import { ADMIN_DATABASE_URL } from './env';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.ROLELINK_TEST_TEMPLATE_DB;
  if (!name) return;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
