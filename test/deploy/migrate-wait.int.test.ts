import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl, stampedName, templateDb } from '../support/env';

/**
 * `migrate status` and `migrate wait` (scripts/migrate-status.ts) against a real, empty PostgreSQL
 * database: the init container of every Deployment runs `wait`, so a new pod must not start its service
 * before the migrate Job has applied every migration its image ships, and must start once it has — also
 * when the database is ahead of the image (a rollback to the previous release).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
const MIGRATE = ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', 'scripts/migrate.ts'];

let name: string;
let url: string;

async function sql(connectionString: string, text: string): Promise<void> {
  const c = new Client({ connectionString });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

async function migrate(cmd: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...MIGRATE, cmd], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** `migrate wait` as a child; `output` resolves once a line matches, `exit` with its exit code. */
function startWait(): { child: ChildProcess; output(re: RegExp): Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [...MIGRATE, 'wait'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, MIGRATE_WAIT_POLL_MS: '100' },
  });
  let out = '';
  const listeners: (() => void)[] = [];
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    listeners.forEach((l) => l());
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const output = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => (re.test(out) ? resolve(out) : undefined);
      listeners.push(check);
      check();
      void exit.then(() =>
        re.test(out) ? resolve(out) : reject(new Error(`migrate wait exited without printing ${re}:\n${out}`)),
      );
    });
  return { child, output, exit };
}

/** An empty database, or (`migrated`) a clone of the run's template, which has every migration applied. */
async function database(migrated: boolean): Promise<void> {
  name = stampedName('t');
  url = databaseUrl(name);
  await sql(ADMIN_DATABASE_URL, `CREATE DATABASE ${name}${migrated ? ` TEMPLATE ${templateDb()}` : ''}`);
}
afterEach(() => sql(ADMIN_DATABASE_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

describe('migrate status and wait', () => {
  it('holds a new pod back until the migrate Job has applied every shipped migration, then lets it start', async () => {
    await database(false);
    const before = await migrate('status');
    expect(before.out).toContain('schema is behind this image');
    expect(before.out).toMatch(/pending: \d{14}_init/);
    expect(before.code).toBe(1);

    const wait = startWait();
    try {
      await wait.output(/waiting for \d+ migration\(s\)/);
      // Still waiting: nothing applied the migrations but the Job below.
      expect(wait.child.exitCode).toBeNull();
      const job = await migrate('deploy');
      expect(job.code).toBe(0);
      expect(await wait.exit).toBe(0);
      expect(await wait.output(/schema is current/)).not.toContain('newer one');
    } finally {
      wait.child.kill('SIGKILL');
    }

    const after = await migrate('status');
    expect(after.out).toContain('schema is current for this image');
    expect(after.code).toBe(0);
  });

  it('waits on a migration that started and never finished (a failed Job), naming it', async () => {
    await database(true);
    // What Prisma leaves when a migration fails: its row with no finished_at. Here the newest one.
    await sql(
      url,
      'UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)',
    );
    const status = await migrate('status');
    expect(status.out).toMatch(/started, not finished .*: \d{14}_\w+/);
    expect(status.code).toBe(1);
    const wait = startWait();
    try {
      await wait.output(/waiting for 1 migration\(s\): \d{14}_\w+ \(started, not finished\)/);
      expect(wait.child.exitCode).toBeNull();
    } finally {
      wait.child.kill('SIGKILL');
      await wait.exit;
    }
  });

  it('lets the previous release start on a database that is ahead of it (a rollback)', async () => {
    await database(true);
    // A newer release's migration, applied before the rollout was undone.
    await sql(
      url,
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('00000000-0000-4000-8000-000000000001', 'x', '29990101000000_next_release', now(), now(), 1)",
    );
    const status = await migrate('status');
    expect(status.out).toContain(
      'applied, not shipped by this image (the database is ahead; fine for a rollback, docs/operations.md): 29990101000000_next_release',
    );
    expect(status.code).toBe(0);
    const wait = startWait();
    expect(await wait.exit).toBe(0);
    expect(await wait.output(/schema is current: \d+ migration\(s\) applied, 1 newer one\(s\) too/)).toBeTruthy();
  });
});
