// A local redis-server for runs where none answers. Debian's package provides the binary; when it is
// missing we install it when we can (root with apt-get) or say exactly what to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnGroup, waitUntil } from './process-group';

export type LocalRedis = {
  url: string;
  pid: number;
  stop: () => Promise<void>;
  /** SIGKILL, no grace: a crash, for tests (nothing is kept on disk, so every key is lost). */
  kill: () => Promise<void>;
};

const INSTALL_HINT = 'sudo apt-get install -y redis-server   (Debian/Ubuntu; or set REDIS_URL to a Redis you run)';

function which(bin: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  const found = r.status === 0 ? r.stdout.trim() : '';
  if (found) return found;
  for (const dir of ['/usr/bin', '/usr/sbin', '/usr/local/bin'])
    if (existsSync(path.join(dir, bin))) return path.join(dir, bin);
  return null;
}

function installWithApt(log: (m: string) => void): void {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'redis-server'], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    }).status === 0;
  log("redis-server is missing: installing Debian's redis-server package (apt-get)…");
  if (install()) return;
  log('apt-get install failed; refreshing package lists (apt-get update) and trying again…');
  execFileSync('apt-get', ['update'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!install()) throw new Error(`could not install redis-server with apt-get; install it yourself: ${INSTALL_HINT}`);
}

/** Finds redis-server, installing Debian's package when running as root on a machine with apt-get. */
export function findRedisServer(log: (m: string) => void, allowInstall = true): string {
  const found = which('redis-server');
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (allowInstall && isRoot && which('apt-get')) {
    installWithApt(log);
    const installed = which('redis-server');
    if (installed) return installed;
  }
  throw new Error(`redis-server is not installed and REDIS_URL does not answer.\n  Install it with: ${INSTALL_HINT}`);
}

/** Sends PING and expects +PONG: proves a Redis (not just any listener) answers. */
export function redisPings(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let buffer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      buffer += d.toString();
      if (buffer.includes('\r\n')) done(buffer.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

export type LocalRedisOptions = { port: number; dataDir: string; log: (m: string) => void; allowInstall?: boolean };

/**
 * Starts redis-server on 127.0.0.1:`port` with nothing kept on disk (the outbox in PostgreSQL re-creates
 * any lost sync job) and `noeviction`, which BullMQ requires.
 */
export async function startLocalRedis({
  port,
  dataDir,
  log,
  allowInstall = true,
}: LocalRedisOptions): Promise<LocalRedis> {
  const bin = findRedisServer(log, allowInstall);
  mkdirSync(dataDir, { recursive: true });
  const logFile = `${dataDir}.log`;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--dir',
    dataDir,
    '--maxmemory-policy',
    'noeviction',
  ];
  const proc = spawnGroup('redis', bin, args, { logFile });
  try {
    await waitUntil(() => redisPings('127.0.0.1', port), {
      timeoutMs: 20_000,
      intervalMs: 100,
      abort: () => (proc.running() ? null : `redis-server exited during start-up; see ${logFile}`),
    });
  } catch (err) {
    await proc.stop('SIGKILL', 2000);
    throw err;
  }
  log(`local redis-server on 127.0.0.1:${port} (log ${path.relative(process.cwd(), logFile)})`);
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: proc.pid,
    stop: async () => {
      await proc.stop('SIGTERM', 10_000);
    },
    kill: async () => {
      await proc.stop('SIGKILL', 0);
    },
  };
}
