// Runs a command with PostgreSQL and Redis available: the ones at DATABASE_URL / REDIS_URL (or the
// local defaults) when they answer, otherwise ones this script starts and stops again afterwards.
//   tsx scripts/with-services.ts -- <command> [args…]
import { spawn } from 'node:child_process';
import { ensurePostgres, ensureRedis, type Started } from './local-services';

async function main(): Promise<void> {
  const sep = process.argv.indexOf('--');
  const [cmd, ...args] = sep >= 0 ? process.argv.slice(sep + 1) : [];
  if (!cmd) throw new Error('usage: with-services.ts -- <command> [args…]');
  const started: Started[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    const pg = await ensurePostgres({ log: (m) => console.error(`› ${m}`) });
    started.push(pg);
    const redis = await ensureRedis({ log: (m) => console.error(`› ${m}`) });
    started.push(redis);
    const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, DATABASE_URL: pg.adminUrl, REDIS_URL: redis.url } });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    const code: number = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
    await stopAll();
    process.exit(code);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    await stopAll();
    process.exit(1);
  }
}

void main();
