// Runs a command with PostgreSQL and Redis available: the ones at DATABASE_URL / REDIS_URL (or the
// local defaults) when they answer, otherwise ones this script starts and stops again afterwards
// (scripts/local-services.ts). The command gets DATABASE_URL = the admin URL (database `postgres`) of
// whichever PostgreSQL is used, and REDIS_URL.
//   tsx scripts/with-services.ts -- <command> [args…]
import { spawn, type ChildProcess } from 'node:child_process';
import { ensurePostgres, ensureRedis, type Started } from './local-services';

const log = (m: string) => console.error(`› ${m}`);

async function main(): Promise<void> {
  const sep = process.argv.indexOf('--');
  const [cmd, ...args] = sep >= 0 ? process.argv.slice(sep + 1) : [];
  if (!cmd) throw new Error('usage: with-services.ts -- <command> [args…]');
  const started: Started[] = [];
  let child: ChildProcess | null = null;
  let stopping: Promise<void> | null = null;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const s of started.reverse()) await s.stop().catch(() => undefined);
    })());
  // A signal while PostgreSQL/Redis are still starting must not leave them running (they live in
  // process groups of their own); once the command runs, it gets the signal and we stop after it.
  const onSignal = (signal: NodeJS.Signals) => {
    if (child) child.kill(signal);
    else void stopAll().then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    const pg = await ensurePostgres({ log });
    started.push(pg);
    const redis = await ensureRedis({ log });
    started.push(redis);
    if (stopping) return;
    child = spawn(cmd, args, {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: pg.adminUrl, REDIS_URL: redis.url },
    });
    const code: number = await new Promise((resolve) => {
      child?.once('error', (err) => {
        log(`${cmd}: ${err.message}`);
        resolve(127);
      });
      child?.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0)));
    });
    await stopAll();
    process.exit(code);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    await stopAll();
    process.exit(1);
  }
}

void main();
