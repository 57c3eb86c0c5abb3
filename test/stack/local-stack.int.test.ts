import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, watch } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from '../support/env';
import { REDIS_URL, dropPrefix } from '../support/redis';
import { until } from '../support/until';
import { freePorts } from '../../scripts/free-port';

// README's first command, run in a fresh clone of the committed tree with its own ports, sharing this
// machine's PostgreSQL and Redis (own database, own queue prefix) so no embedded server is needed.
const ROOT = path.resolve(__dirname, '..', '..');
const GUILD = '1100000000000000001';
const ROLE = '1100000000000000011';

/** True when `file` exists in the committed tree the clone will have. */
function committed(file: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `HEAD:${file}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const built = {
  api: committed('services/api/src/main.ts'),
  broker: committed('services/plugin-broker/src/main.ts'),
  worker: committed('services/bot-worker/src/main.ts'),
  cli: committed('services/cli/src/main.ts'),
};
const linkable = built.api && built.broker && built.cli;
const missing = (names: (keyof typeof built)[]) => names.filter((n) => !built[n]).join(', ');

/** Every process whose command line or working directory lies inside `dir` (Linux /proc). */
function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* exited meanwhile or not ours */
      }
      if (cmd.includes(dir) || cwd.startsWith(dir)) found.push(`${pid} ${cmd.trim()}`);
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

/** Resolves with `read()`'s first defined answer, read again on every change inside `dir`. */
function whenWritten<T>(dir: string, read: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = () => {
      let value: T | undefined;
      try {
        value = read();
      } catch {
        return; // caught between the write and the rename: the rename is another change
      }
      if (value === undefined) return;
      finish();
      resolve(value);
    };
    const watcher = watch(dir, check);
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const finish = () => {
      watcher.close();
      clearTimeout(timer);
    };
    check(); // written before the watch began
  });
}

/**
 * How often the API or the emulator is asked while waiting (each ask one request): the API's asks count
 * against the link's rate limit (600 a minute on the free plan), and the test's own PUT must not meet a 429.
 */
const ASK_EVERY_MS = 300;

describe("the local stack started by README's first command", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-stack-'));
  const clone = path.join(tmp, 'repo');
  const dbName = `rolelink_stack_${randomBytes(5).toString('hex')}`;
  const queuePrefix = `rlstack-${randomBytes(4).toString('hex')}`;
  let ports: Record<string, number>;
  let stack: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null>;

  beforeAll(async () => {
    execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'pipe' });
    // From the store this machine already has: no registry needed.
    execFileSync('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], {
      cwd: clone,
      stdio: 'pipe',
      env: { ...process.env, CI: 'true' },
    });
    const names = ['API_PORT', 'DASHBOARD_PORT', 'BROKER_PORT', 'WORKER_PORT', 'EMULATOR_PORT', 'PLUGIN_PORT'];
    const picked = await freePorts(names.length);
    ports = Object.fromEntries(names.map((v, i) => [v, picked[i]!]));
  }, 600_000);

  afterAll(async () => {
    if (stack?.pid && stack.exitCode === null) {
      stack.kill('SIGKILL');
      for (const line of processesUnder(clone)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    }
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end());
    await dropPrefix(queuePrefix);
    rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('prints one summary and then ready once every service answers its readiness check', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      PLUGIN_DEMO_COUNT: '3',
      LOG_LEVEL: 'warn',
      CI: 'true',
    };
    delete env.ROLELINK_SECRET_KEY;
    stack = spawn('bash', ['scripts/start.sh'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    exited = new Promise((resolve) => stack?.once('exit', (code) => resolve(code)));
    stack.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
    stack.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => /^ready$/m.test(output) && resolve();
      stack?.stdout?.on('data', check);
      void exited.then((code) => reject(new Error(`start.sh exited (${code}) before ready:\n${output.slice(-3000)}`)));
    });
    // The deadline follows progress: start.sh prints as it installs, builds and starts, so only 120 s
    // without a new line fails (a fixed 110 s failed at load 15, where a cold start takes minutes).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      const stalled = () => reject(new Error(`no output for 120 s and no ready line:\n${output.slice(-3000)}`));
      timer = setTimeout(stalled, 120_000);
      const restart = () => {
        clearTimeout(timer);
        timer = setTimeout(stalled, 120_000);
      };
      stack?.stdout?.on('data', restart);
      stack?.stderr?.on('data', restart);
    });
    await Promise.race([ready, late]).finally(() => clearTimeout(timer));
    expect(output.match(/Role Link Service: local stack/g)).toHaveLength(1);
    expect(output).toContain(`http://127.0.0.1:${ports.DASHBOARD_PORT}`);
    const readyz = await fetch(`http://127.0.0.1:${ports.DASHBOARD_PORT}/readyz`);
    expect(readyz.status).toBe(200);
    if (built.api) expect((await fetch(`http://127.0.0.1:${ports.API_PORT}/readyz`)).status).toBe(200);
  }, 900_000);

  it("serves the dashboard's front end and signs in through the emulator's OAuth2 page, with no external account", async () => {
    const dashboard = `http://127.0.0.1:${ports.DASHBOARD_PORT}`;
    const page = await fetch(dashboard);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const login = await fetch(`${dashboard}/auth/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get('location')!);
    expect(authorize.origin).toBe(`http://127.0.0.1:${ports.EMULATOR_PORT}`);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${dashboard}/auth/callback`);
    const signIn = await fetch(authorize);
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('demo_owner');
  });

  (linkable ? it : it.skip)(
    `accepts a list pushed through the API with the token the example plugin received${linkable ? '' : ` (skipped: not built yet: ${missing(['api', 'broker', 'cli'])})`}`,
    async () => {
      const dataDir = path.join(clone, '.data');
      const stateFile = path.join(dataDir, 'plugin-state.json');
      const registered = () =>
        existsSync(stateFile)
          ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { token: string }[])[0]?.token
          : undefined;
      const token = await whenWritten(dataDir, registered, 30_000, 'the plugin registration');
      const url = `http://127.0.0.1:${ports.API_PORT}/api/role-link/${GUILD}/${ROLE}/users`;
      // The plugin pushed its first three demo members after registering; wait for that, then add two.
      await until(
        async () => {
          const res = await fetch(url, { headers: { Authorization: `Token ${token}` } });
          return { status: res.status, users: ((await res.json()) as { data?: string[] }).data?.length };
        },
        (a) => a.status === 200 && a.users === 3,
        "the plugin's first list",
        30_000,
        ASK_EVERY_MS,
      );
      const list = [
        '100000000000000000',
        '100000000000000001',
        '100000000000000002',
        '100000000000000500',
        '100000000000000501',
      ];
      const res = await fetch(url, {
        method: 'PUT',
        headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(list),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { user_count: number } }).data.user_count).toBe(5);
    },
    60_000,
  );

  (linkable && built.worker ? it : it.skip)(
    `makes the emulator's role holders match the pushed list${linkable && built.worker ? '' : ` (skipped: not built yet: ${missing(['api', 'broker', 'cli', 'worker'])})`}`,
    async () => {
      const want = [
        '100000000000000000',
        '100000000000000001',
        '100000000000000002',
        '100000000000000500',
        '100000000000000501',
      ];
      const holdersUrl = `http://127.0.0.1:${ports.EMULATOR_PORT}/_emulator/guilds/${GUILD}/roles/${ROLE}/holders`;
      const holders = await until(
        async () => [...((await (await fetch(holdersUrl)).json()) as { holders: string[] }).holders].sort(),
        (got) => JSON.stringify(got) === JSON.stringify(want),
        'the emulator role holders to match',
        60_000,
        ASK_EVERY_MS,
      );
      expect(holders).toEqual(want);
    },
    90_000,
  );

  (linkable ? it : it.skip)(
    `./rolelink from the checkout reaches this stack on its own ports with nothing exported${linkable ? '' : ` (skipped: not built yet: ${missing(['api', 'broker', 'cli'])})`}`,
    () => {
      // A user's shell: no DATABASE_URL, no BROKER_URL; the stack's ports are not the defaults.
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmp };
      // config get goes database → broker (BROKER_URL) → plugin: it works only with the stack's addresses.
      const got = execFileSync(path.join(clone, 'rolelink'), ['config', 'get', GUILD, ROLE, '--json'], {
        cwd: tmp,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      // The plugin's form as the broker fetched it (the demo plugin answers in schema mode).
      expect(JSON.parse(got.trim().split('\n').at(-1)!)).toMatchObject({
        fetched_at: expect.any(String),
        schema: expect.objectContaining({ name: expect.any(String) }),
      });
    },
    90_000,
  );

  it('stops everything it started on SIGTERM, leaving no process behind', async () => {
    expect(stack?.pid).toBeDefined();
    stack?.kill('SIGTERM');
    const code = await exited;
    expect(output).toMatch(/^› stopped$/m);
    expect(code).toBe(0);
    expect(processesUnder(clone)).toEqual([]);
    // ./rolelink no longer points at a stack that is gone.
    expect(existsSync(path.join(clone, '.data', 'stack.env'))).toBe(false);
  }, 60_000);
});
