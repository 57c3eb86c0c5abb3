// Finds or starts the PostgreSQL and Redis the project needs (shared by the test runner and the local stack).
import net from 'node:net';

export type Started = { stop(): Promise<void> };
export type Pg = Started & { adminUrl: string };
export type RedisService = Started & { url: string };
type Opts = { log: (msg: string) => void };

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

export async function ensurePostgres({ log }: Opts): Promise<Pg> {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  if (await answers(url.hostname, Number(url.port || 5432))) {
    log(`PostgreSQL at ${url.host}`);
    return { adminUrl: url.toString(), stop: async () => undefined };
  }
  throw new Error(`PostgreSQL does not answer at ${url.host}`);
}

export async function ensureRedis({ log }: Opts): Promise<RedisService> {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (await answers(url.hostname, Number(url.port || 6379))) {
    log(`Redis at ${url.host}`);
    return { url: url.toString(), stop: async () => undefined };
  }
  throw new Error(`Redis does not answer at ${url.host}`);
}
