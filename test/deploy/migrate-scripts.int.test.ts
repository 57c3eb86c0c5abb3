import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl, stampedName } from '../support/env';

/**
 * scripts/migrate.ts applies a migration file as PostgreSQL reads it (scripts/migrate-adapter.ts): one
 * simple-query message, so a semicolon in a comment or a string literal is text, and the file goes in
 * whole or not at all. The migrations are a folder of this test's own, applied to an empty database.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
/** `migrate(url, log, dir)` in a process with the schema engine's WebAssembly (a jest worker has no flag for it). */
const APPLY =
  "require('./scripts/migrate').migrate(process.env.DATABASE_URL, console.log, process.argv[1]).catch((e) => { console.error(e.message); process.exitCode = 1; })";

const name = stampedName('t');
const url = databaseUrl(name);
const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-migrations-'));

async function sql<T extends object>(connectionString: string, text: string): Promise<T[]> {
  const c = new Client({ connectionString });
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

/** Adds a migration to the folder and applies what is pending. */
async function apply(migration: string, text: string): Promise<{ code: number; out: string }> {
  mkdirSync(path.join(dir, migration));
  writeFileSync(path.join(dir, migration, 'migration.sql'), text);
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', '-e', APPLY, dir],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } },
    );
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

beforeAll(async () => {
  await sql(ADMIN_DATABASE_URL, `CREATE DATABASE ${name}`);
  writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
});
afterAll(async () => {
  await sql(ADMIN_DATABASE_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
});

describe('migrate deploy: each file as PostgreSQL reads it', () => {
  it('applies a file with semicolons in comments and in string literals as written', async () => {
    const applied = await apply(
      '20990101000000_semicolons',
      `-- A note; with a semicolon, and an apostrophe's too.
CREATE TABLE probe (note text NOT NULL);
/* A block comment; also. */
INSERT INTO probe (note) VALUES ('a;b'), ('it''s; -- not a comment');
`,
    );
    expect(applied).toMatchObject({
      code: 0,
      out: expect.stringContaining('applied migration 20990101000000_semicolons'),
    });
    expect(await sql<{ note: string }>(url, 'SELECT note FROM probe ORDER BY note')).toEqual([
      { note: 'a;b' },
      { note: "it's; -- not a comment" },
    ]);
  });

  it('leaves nothing of a file whose statement fails, and says why', async () => {
    const failed = await apply('20990102000000_fails', 'CREATE TABLE half (id int);\nSELECT 1 / 0;\n');
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('division by zero');
    expect(await sql<{ t: string | null }>(url, "SELECT to_regclass('half')::text AS t")).toEqual([{ t: null }]);
  });

  it('builds an index concurrently in a file of its own (one statement is no transaction block)', async () => {
    await sql(url, 'DELETE FROM _prisma_migrations WHERE finished_at IS NULL'); // the failed file above, given up
    rmSync(path.join(dir, '20990102000000_fails'), { recursive: true });
    const applied = await apply(
      '20990103000000_concurrent_index',
      'CREATE INDEX CONCURRENTLY probe_note_idx ON probe (note);\n',
    );
    expect(applied.code).toBe(0);
    expect(
      await sql<{ valid: boolean }>(
        url,
        "SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = 'probe_note_idx'::regclass",
      ),
    ).toEqual([{ valid: true }]);
  });
});
