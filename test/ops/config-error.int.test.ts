import { spawn } from 'node:child_process';
import { ROOT, serviceArgs, type ServiceName } from '../../scripts/service-process';

// A service started with a bad environment writes one structured line naming every bad variable and exits 1,
// instead of an uncaught stack trace: what a log pipeline or `kubectl logs` of a crash-looping pod shows.

type Run = { code: number | null; stdout: string; stderr: string };

function start(name: ServiceName, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, serviceArgs(name, 'tsx'), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Only what the test gives: no variable of the caller's may make the environment valid.
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Each service with several variables wrong at once (and, in production, ones it must not run without).
const CASES: { name: ServiceName; env: Record<string, string>; bad: string[] }[] = [
  {
    name: 'api',
    env: { NODE_ENV: 'production', API_PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'redis://127.0.0.1:6379' },
    bad: ['API_PORT', 'LOG_LEVEL', 'DATABASE_URL', 'REDIS_URL'],
  },
  {
    name: 'plugin-broker',
    env: {
      BROKER_PORT: '-1',
      ROLELINK_SECRET_KEYS: 'k1:short',
      BROKER_CONCURRENCY: '0',
    },
    bad: ['BROKER_PORT', 'ROLELINK_SECRET_KEYS', 'BROKER_INTERNAL_TOKEN', 'BROKER_CONCURRENCY'],
  },
  {
    name: 'bot-worker',
    env: { NODE_ENV: 'production', LOG_LEVEL: 'loud', PLATFORM_API_URL: 'not a url' },
    bad: ['LOG_LEVEL', 'PLATFORM_API_URL', 'DATABASE_URL', 'PLATFORM_BOT_TOKEN'],
  },
  {
    name: 'dashboard',
    env: { DASHBOARD_PORT: 'x' },
    bad: ['DASHBOARD_PORT', 'DASHBOARD_SESSION_SECRET', 'ROLELINK_SECRET_KEY', 'PLATFORM_OAUTH_CLIENT_ID'],
  },
];

describe('a service started with a bad environment', () => {
  it.each(CASES)('$name writes one JSON line naming every bad variable and exits 1', async ({ name, env, bad }) => {
    const run = await start(name, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { level: string; message: string; service: string; variables: string[] };
    expect(line).toMatchObject({ level: 'error', message: 'invalid configuration', service: name });
    expect(line.variables).toEqual(expect.arrayContaining(bad));
    expect(run.stderr).not.toMatch(/^\s+at /m); // no stack trace
  });
});
