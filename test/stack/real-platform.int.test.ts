import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from '../support/env';
import { REDIS_URL, dropPrefix } from '../support/redis';
import { cloneCheckout, startStackProcess, type StackRun } from '../support/stack-clone';
import { until } from '../support/until';
import { freePorts } from '../../scripts/free-port';
import { DEMO, demoSeed } from '../../scripts/stack/config';

// The local stack on a real platform (scripts/stack/platform.ts): the emulator, started here on a port of
// its own, poses as the user's platform. The stack runs from a fresh clone of the committed tree, as
// README's first command does (its .data is the clone's), sharing this machine's PostgreSQL and Redis.
const ROOT = path.resolve(__dirname, '..', '..');
const BOTLESS_GUILD = DEMO.botlessGuild.id;

describe('the local stack started against a real platform', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-real-platform-'));
  const clone = path.join(tmp, 'repo');
  const dbName = `rolelink_real_${randomBytes(5).toString('hex')}`;
  const queuePrefix = `rlreal-${randomBytes(4).toString('hex')}`;
  let ports: Record<string, number>;
  let platformPort: number;
  let platform: ChildProcess | undefined;
  const runs: StackRun[] = [];

  const platformEnv = (): NodeJS.ProcessEnv => ({
    PLATFORM_API_URL: `http://127.0.0.1:${platformPort}/api`,
    PLATFORM_BOT_TOKEN: DEMO.botToken,
    PLATFORM_OAUTH_CLIENT_ID: DEMO.oauth.clientId,
    PLATFORM_OAUTH_CLIENT_SECRET: DEMO.oauth.clientSecret,
  });

  /** The stack in the clone on its own ports, database and queue prefix, with `extra` set. */
  const startStack = (extra: NodeJS.ProcessEnv): StackRun => {
    const run = startStackProcess(clone, {
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'warn',
      ROLELINK_SECRET_KEY: undefined,
      DOCTOR_GUILD_ID: undefined,
      DASHBOARD_PUBLIC_URL: undefined,
      ...extra,
    });
    runs.push(run);
    return run;
  };

  beforeAll(async () => {
    cloneCheckout(ROOT, clone);
    const names = ['API_PORT', 'DASHBOARD_PORT', 'BROKER_PORT', 'WORKER_PORT', 'EMULATOR_PORT', 'PLUGIN_PORT'];
    const picked = await freePorts(names.length + 1);
    ports = Object.fromEntries(names.map((v, i) => [v, picked[i]!]));
    platformPort = picked[names.length]!;
    const seedFile = path.join(tmp, 'platform-seed.json');
    writeFileSync(seedFile, JSON.stringify(demoSeed(20)));
    platform = spawn(process.execPath, ['--import', 'tsx', 'services/platform-emulator/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        EMULATOR_PORT: String(platformPort),
        EMULATOR_SEED: seedFile,
        EMULATOR_BOT_TOKEN: DEMO.botToken,
        EMULATOR_OAUTH_CLIENT_ID: DEMO.oauth.clientId,
        EMULATOR_OAUTH_CLIENT_SECRET: DEMO.oauth.clientSecret,
        EMULATOR_OAUTH_REDIRECT_URIS: `http://127.0.0.1:${ports.DASHBOARD_PORT}/auth/callback`,
      },
      stdio: 'ignore',
    });
    await until(
      () =>
        fetch(`http://127.0.0.1:${platformPort}/_emulator/stats`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200,
      'the emulator posing as the platform',
      120_000,
      250,
    );
  }, 600_000);

  afterAll(async () => {
    for (const run of runs) if (run.proc.exitCode === null) run.proc.kill('SIGKILL');
    platform?.kill('SIGTERM');
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end());
    await dropPrefix(queuePrefix);
    rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('refuses a half-given platform, naming what is missing, before starting anything', async () => {
    const run = startStack({ PLATFORM_API_URL: platformEnv().PLATFORM_API_URL });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(
      'PLATFORM_API_URL is set but not PLATFORM_BOT_TOKEN, PLATFORM_OAUTH_CLIENT_ID, PLATFORM_OAUTH_CLIENT_SECRET',
    );
  }, 120_000);

  it("refuses a token the platform rejects with rolelink doctor's report, starting no service", async () => {
    const run = startStack({ ...platformEnv(), PLATFORM_BOT_TOKEN: 'not-the-bot-token' });
    expect(await run.exited).toBe(1);
    const output = run.output();
    expect(output).toContain('checking the platform at');
    expect(output).toMatch(/✗ Bot token/);
    expect(output).toContain('NOT ready');
    expect(output).toContain('rolelink doctor says the setup is not ready');
    expect(output).not.toMatch(/ready on http/);
  }, 300_000);

  it("refuses a server the bot is not in (DOCTOR_GUILD_ID) with doctor's report and the bot's invite", async () => {
    const run = startStack({ ...platformEnv(), DOCTOR_GUILD_ID: BOTLESS_GUILD });
    expect(await run.exited).toBe(1);
    const output = run.output();
    expect(output).toContain(`server ${BOTLESS_GUILD}`);
    expect(output).toContain(`guild_id=${BOTLESS_GUILD}`);
    expect(output).toContain('NOT ready');
    expect(output).not.toMatch(/ready on http/);
  }, 300_000);

  it('starts every service but the emulator on a ready setup, with no demo guild, signing in on the platform', async () => {
    const run = startStack({ ...platformEnv(), DOCTOR_GUILD_ID: DEMO.guildId });
    const ready = await until(
      () => run.output(),
      (out) => /^ready$/m.test(out) || run.proc.exitCode !== null,
      'the ready line',
      600_000,
      250,
    );
    expect(ready).toMatch(/^ready$/m);
    expect(ready).toContain('ready: every check passes');
    expect(ready).toContain('Role Link Service: local stack on your platform');
    expect(ready).not.toContain('Platform emulator ready');
    expect(ready).not.toContain('registering the demo link');
    // Nothing listens where the stack's own emulator would have.
    await expect(fetch(`http://127.0.0.1:${ports.EMULATOR_PORT}/_emulator/stats`)).rejects.toThrow();
    expect((await fetch(`http://127.0.0.1:${ports.API_PORT}/readyz`)).status).toBe(200);
    // Sign-in goes to the platform's own authorize page (PLATFORM_API_URL's origin), with the registered callback.
    const login = await fetch(`http://127.0.0.1:${ports.DASHBOARD_PORT}/auth/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get('location')!);
    expect(authorize.origin).toBe(`http://127.0.0.1:${platformPort}`);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${ports.DASHBOARD_PORT}/auth/callback`);
    expect(authorize.searchParams.get('client_id')).toBe(DEMO.oauth.clientId);
    // The platform was seeded by nobody but this test: no link exists, the linked role has no holders.
    const holders = await fetch(
      `http://127.0.0.1:${platformPort}/_emulator/guilds/${DEMO.guildId}/roles/${DEMO.linkedRoleId}/holders`,
    ).then((r) => r.json() as Promise<{ holders: string[] }>);
    expect(holders.holders).toEqual([]);
    run.proc.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 900_000);
});
