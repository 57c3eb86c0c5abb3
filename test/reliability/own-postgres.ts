import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

// A PostgreSQL server of a scenario's own (initdb into a temp directory, its own port), so the scenario
// can restart it without touching the server every other test uses. Debian's binaries; as root they run
// as the `postgres` user, which PostgreSQL requires.

function binDir(): string {
  const base = '/usr/lib/postgresql';
  const version = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (!version) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  return path.join(base, version, 'bin');
}

export type OwnPostgres = {
  port: number;
  adminUrl: string;
  url(db: string): string;
  /** Creates database `db` and applies every migration to it (scripts/migrate.ts); resolves to its URL. */
  migratedDb(db: string): Promise<string>;
  restart(): void;
  stop(): void;
};

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * `fast` (the default) trades durability for speed, for scenarios about connections and restarts.
 * `defaults` keeps PostgreSQL's own settings (fsync, synchronous commit, autovacuum): what a production
 * server runs, for scenarios whose figures depend on how the server keeps up over time. This machine's
 * shared server is not that: its CI configuration turns autovacuum off.
 */
export async function startOwnPostgres(settings: 'fast' | 'defaults' = 'fast'): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : path.join(bin, cmd),
      asRoot ? ['-u', 'postgres', '--', path.join(bin, cmd), ...args] : args,
      { stdio: 'pipe', cwd: dir },
    );
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options =
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1` +
    (settings === 'fast' ? ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off' : '');
  const ctl = (...args: string[]) =>
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '60', ...args]);
  ctl('start');
  const url = (db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
  const adminUrl = url('postgres');
  return {
    port,
    adminUrl,
    url,
    async migratedDb(db) {
      const admin = new Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${db}`);
      } finally {
        await admin.end();
      }
      execFileSync(
        process.execPath,
        ['--experimental-wasm-modules', '--no-warnings', '--import', 'tsx', 'scripts/migrate.ts', 'deploy'],
        { cwd: ROOT, env: { ...process.env, DATABASE_URL: url(db) }, stdio: 'pipe' },
      );
      return url(db);
    },
    // `-m fast`: what an operator's restart or a failover does to clients — every connection is closed and
    // its open transaction rolled back.
    restart: () => ctl('restart', '-m', 'fast'),
    stop() {
      try {
        ctl('stop', '-m', 'immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
