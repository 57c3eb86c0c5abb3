// Shared pieces of the sync benchmarks: a scratch database, worker processes, pacing helpers.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { REDIS_URL, ROOT, admin, createMigratedDb } from './support/bench-db';
import { createDb, type Db, toStored } from '@rolelink/db/client';
import { createUpload } from '@rolelink/db/list';
import { dropPrefix } from '../test/support/redis';

export { ADMIN_URL, REDIS_URL, ROOT, dbUrl } from './support/bench-db';

export type ScratchDb = Db & { url: string; drop(): Promise<void> };

/** A freshly migrated database of its own, dropped afterwards. */
export async function scratchDb(tag: string): Promise<ScratchDb> {
  const name = `rolelink_bench_${tag}_${randomBytes(3).toString('hex')}`;
  const url = await createMigratedDb(name);
  const db = createDb(url, { max: 4 });
  return {
    ...db,
    url,
    async drop() {
      await db.close();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Real worker processes (`node --import tsx services/bot-worker/src/main.ts`). */
export function spawnWorkers(n: number, env: Record<string, string>): ChildProcess[] {
  return Array.from({ length: n }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/bot-worker/src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        LOG_LEVEL: 'error',
        WORKER_PORT: '0',
        WORKER_HOST: '127.0.0.1',
        RECONCILE_EVERY_MS: '3600000',
        ...env,
      },
    });
    return child;
  });
}

/** A bench worker's settings: its scratch database, the shared Redis under the run's prefix, the in-process emulator. */
export function workerEnv(
  s: { db: { url: string }; prefix: string; emulator: { apiBase: string; botToken: string } },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: s.db.url,
    REDIS_URL,
    QUEUE_PREFIX: s.prefix,
    PLATFORM_API_URL: s.emulator.apiBase,
    PLATFORM_BOT_TOKEN: s.emulator.botToken,
    ...extra,
  };
}

export async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the emulator');
    await sleep(2);
  }
}

/**
 * An open upload session of the link whose staged IDs are generated in SQL (`select` yields `user_id`
 * rows), as the other benches generate their data: the chunks' HTTP side is `pnpm bench api`'s figure.
 * Committing it is the caller's (the commit's own `replaceList`). Returns the upload id.
 */
export async function stagedUpload(db: ScratchDb, linkId: string, select: string): Promise<string> {
  const uploadId = await createUpload(db.pool, linkId);
  const r = await db.pool.query(
    `INSERT INTO upload_staged (link_id, upload_id, user_id) SELECT $2, $1::uuid, ${toStored('user_id')} FROM (${select}) s`,
    [uploadId, linkId],
  );
  const users = r.rowCount ?? 0;
  await db.pool.query('UPDATE upload_session SET chunks = $2, users = $3 WHERE id = $1', [
    uploadId,
    Math.ceil(users / 100_000),
    users,
  ]);
  return uploadId;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}

/** The end of one bench case (its `finally`): its queue producer, Redis connection, emulator, scratch database and queue prefix. */
export async function teardownCase(c: {
  producer: { close(): Promise<void> };
  redis: { disconnect(): void };
  emulator: { close(): Promise<void> };
  db: ScratchDb;
  prefix: string;
  redisUrl?: string;
}): Promise<void> {
  await c.producer.close();
  c.redis.disconnect();
  await c.emulator.close();
  await c.db.drop();
  await dropPrefix(c.prefix, c.redisUrl ?? REDIS_URL);
}
