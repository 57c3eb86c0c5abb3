import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../scripts/free-port';
import { until } from './until';

// A PgBouncer of the test's own (Debian's `pgbouncer` package, not its system service): transaction
// pooling, trust authentication, in front of the PostgreSQL of `directUrl`, on a free port of the
// loopback, with a small server pool so that the clients really share server connections.
export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? null;

export type PgBouncer = {
  /** `directUrl` with PgBouncer's host and port, marked `pgbouncer=true` (docs/pgbouncer.md). */
  url: string;
  /** One row set of PgBouncer's admin console (SHOW STATS, SHOW POOLS…). */
  show(what: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
};

export async function startPgBouncer(directUrl: string, poolSize = 4): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-pgbouncer-'));
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root, run it as the postgres user (Debian's packages make it).
  const ids = process.getuid?.() === 0 ? postgresIds() : null;
  if (ids) chownSync(dir, ids.uid, ids.gid);
  if (ids) for (const f of ['userlist.txt', 'pgbouncer.ini']) chownSync(path.join(dir, f), ids.uid, ids.gid);
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(ids ?? {}),
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  const url = new URL(directUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.searchParams.set('pgbouncer', 'true');
  const admin = new URL(url);
  admin.pathname = '/pgbouncer';
  admin.search = '';
  const show = async (what: string) => {
    const c = new Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      return (await c.query(`SHOW ${what}`)).rows as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${stderr}`);
      return show('VERSION').then(
        () => true,
        () => false,
      );
    },
    (up) => up,
    'pgbouncer to accept connections',
    60_000,
    200,
  );
  return {
    url: url.toString(),
    show,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root and no postgres user to run pgbouncer as');
  return { uid, gid };
}
