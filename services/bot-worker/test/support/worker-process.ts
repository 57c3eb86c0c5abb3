import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

export type WorkerProcessTarget = {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  platformApiUrl: string;
  botToken: string;
};

/**
 * A real bot worker process, as production runs it: `node --import tsx services/bot-worker/src/main.ts`
 * (not the tsx CLI, whose wrapper process would stand between a signal and the worker). Short locks and
 * slices so a killed worker's job is taken over within seconds. `TEST_WORKER_LOG_LEVEL` shows its logs.
 */
export function startWorkerProcess(target: WorkerProcessTarget, extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/bot-worker/src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', process.env.TEST_WORKER_LOG_LEVEL ? 'inherit' : 'ignore', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: target.databaseUrl,
      REDIS_URL: target.redisUrl,
      QUEUE_PREFIX: target.prefix,
      PLATFORM_API_URL: target.platformApiUrl,
      PLATFORM_BOT_TOKEN: target.botToken,
      PLATFORM_GLOBAL_PER_SECOND: '40',
      WORKER_CONCURRENCY: '4',
      WORKER_PORT: '0',
      WORKER_HOST: '127.0.0.1',
      WORKER_LOCK_MS: '2000',
      SLICE_MS: '400',
      RECONCILE_EVERY_MS: '3600000',
      LOG_LEVEL: process.env.TEST_WORKER_LOG_LEVEL ?? 'error',
      ...extra,
    },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(`worker exited ${code}: ${stderr}`);
  });
  return child;
}
