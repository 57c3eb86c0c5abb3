import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from '../support/env';
import { REDIS_URL, dropPrefix } from '../support/redis';
import { cloneCheckout, startStackProcess, type StackRun } from '../support/stack-clone';
import { until } from '../support/until';
import { freePorts } from '../../scripts/free-port';
import { prepareSpacebar } from '../../scripts/spacebar/prepare';
import { seedSpacebarGuild, type SpacebarGuild } from '../../scripts/spacebar/seed';
import { startSpacebar, type SpacebarServer } from '../../scripts/spacebar/server';
import { SHIMS, startShimProxy, type ShimProxy } from '../../scripts/spacebar/shims';

// The whole product against Spacebar (../shared/platforms/spacebar), an independent reimplementation of
// Discord's server: the local stack on a "real platform" (scripts/stack/platform.ts) whose PLATFORM_API_URL is
// Spacebar behind the shim proxy (scripts/spacebar/shims.ts, one shim per deviation of the README's table).
// A deviation met without a shim is an expected failure naming its row (`it.failing`), so this fails only on
// something new. docs/spacebar.md says what works and what does not, and whose fault each is.
const ROOT = path.resolve(__dirname, '..', '..');
const execFileP = promisify(execFile);
const MEMBERS = 12;

describe('the product against Spacebar', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-spacebar-'));
  const clone = path.join(tmp, 'repo');
  const suffix = randomBytes(4).toString('hex');
  const dbName = `rolelink_on_spacebar_${suffix}`;
  const queuePrefix = `rlsb-${suffix}`;
  let spacebar: SpacebarServer | undefined;
  let proxy: ShimProxy | undefined;
  let guild: SpacebarGuild;
  let ports: Record<string, number>;
  let stack: StackRun | undefined;
  const log = (line: string) => process.stdout.write(`spacebar: ${line}\n`);

  /** `./rolelink` from the clone: it reads the running stack's settings from .data/stack.env. */
  const rolelink = async (...args: string[]) =>
    execFileP(path.join(clone, 'rolelink'), args, {
      cwd: clone,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmp },
      timeout: 120_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 1,
        out: `${e.stdout ?? ''}${e.stderr ?? ''}`,
      }),
    );

  /** Who holds the role on Spacebar, read from Spacebar itself (not through the shims) with the bot token. */
  const holders = async (): Promise<string[]> => {
    const held: string[] = [];
    for (const userId of guild.memberIds) {
      const res = await fetch(`${spacebar!.apiBase}/v10/guilds/${guild.guildId}/members/${userId}`, {
        headers: { Authorization: `Bot ${guild.botToken}` },
      });
      const member = (await res.json()) as { roles?: string[] };
      if (member.roles?.includes(guild.roleId)) held.push(userId);
    }
    return held.sort();
  };
  const waitHolders = (want: string[], what: string) =>
    until(holders, (got) => JSON.stringify(got) === JSON.stringify([...want].sort()), what, 180_000, 1_000);

  const pluginToken = (): string | undefined => {
    const file = path.join(clone, '.data', 'plugin-state.json');
    if (!existsSync(file)) return undefined;
    return (JSON.parse(readFileSync(file, 'utf8')) as { roleId: string; token: string }[]).find(
      (l) => l.roleId === guild.roleId,
    )?.token;
  };
  const listUrl = () => `http://127.0.0.1:${ports.API_PORT}/api/role-link/${guild.guildId}/${guild.roleId}/users`;
  const push = (method: string, url: string, body?: unknown) =>
    fetch(url, {
      method,
      headers: { Authorization: `Token ${pluginToken()}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    const started = Date.now();
    const { dir, built } = await prepareSpacebar(log);
    log(`${built ? 'built' : 'reused'} ${path.relative(ROOT, dir)} (${Math.round((Date.now() - started) / 1000)} s)`);
    spacebar = await startSpacebar({
      dir,
      workDir: tmp,
      adminDatabaseUrl: ADMIN_DATABASE_URL,
      databaseName: `spacebar_${suffix}`,
    });
    guild = await seedSpacebarGuild(spacebar.apiBase, MEMBERS);
    log(`seeded guild ${guild.guildId} with ${MEMBERS} members (${Math.round((Date.now() - started) / 1000)} s)`);
    proxy = await startShimProxy(new URL(spacebar.apiBase).origin, SHIMS);
    cloneCheckout(ROOT, clone);
    const names = ['API_PORT', 'DASHBOARD_PORT', 'BROKER_PORT', 'WORKER_PORT', 'EMULATOR_PORT', 'PLUGIN_PORT'];
    const picked = await freePorts(names.length);
    ports = Object.fromEntries(names.map((v, i) => [v, picked[i]!]));
    stack = startStackProcess(clone, {
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'warn',
      PLATFORM_API_URL: proxy.apiBase,
      PLATFORM_BOT_TOKEN: guild.botToken,
      PLATFORM_OAUTH_CLIENT_ID: guild.applicationId,
      // Sign-in is not exercised here: Spacebar's OAuth2 token endpoint is outside this test.
      PLATFORM_OAUTH_CLIENT_SECRET: 'spacebar-sign-in-not-exercised',
      DOCTOR_GUILD_ID: guild.guildId,
      // The example plugin pushes nothing of its own (its demo IDs are not Spacebar's users).
      PLUGIN_DEMO_COUNT: '0',
      ROLELINK_SECRET_KEY: undefined,
      DASHBOARD_PUBLIC_URL: undefined,
    });
    await until(
      () => stack!.output(),
      (out) => /^ready$/m.test(out) || stack!.proc.exitCode !== null,
      'the stack on Spacebar to be ready',
      900_000,
      500,
    );
    log(`stack ready (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 1_800_000);

  afterAll(async () => {
    if (stack && stack.proc.exitCode === null) {
      stack.proc.kill('SIGTERM');
      await stack.exited;
    }
    await proxy?.close();
    await spacebar?.stop();
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS spacebar_${suffix} WITH (FORCE)`).finally(() => admin.end());
    await dropPrefix(queuePrefix);
    rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('starts on Spacebar: rolelink doctor says the setup is ready, then every service but the emulator', () => {
    const out = stack!.output();
    expect(out).toContain('ready: every check passes');
    expect(out).toMatch(/^ready$/m);
    expect(out).toContain('local stack on your platform');
  });

  it('creates a link to the example plugin (link create reads the role and its holders on Spacebar)', async () => {
    const res = await rolelink(
      'link',
      'create',
      guild.guildId,
      guild.roleId,
      '--plugin-url',
      `https://127.0.0.1:${ports.PLUGIN_PORT}`,
    );
    expect(res.code === 0 ? 'exit 0' : res.out).toBe('exit 0');
    await until(pluginToken, (t) => t !== undefined, "the plugin's registration", 60_000, 250);
  });

  it('applies a pushed list of 3 on Spacebar', async () => {
    const list = guild.memberIds.slice(0, 3);
    const res = await push('PUT', listUrl(), list);
    expect(res.status).toBe(200);
    expect(await waitHolders(list, 'the pushed list on Spacebar')).toEqual([...list].sort());
  });

  it('adds and removes single members on Spacebar', async () => {
    const [first, second, third, fourth] = guild.memberIds as [string, string, string, string];
    expect((await push('POST', `${listUrl()}/${fourth}`)).status).toBeLessThan(300);
    await waitHolders([first, second, third, fourth], 'the single add on Spacebar');
    expect((await push('DELETE', `${listUrl()}/${first}`)).status).toBeLessThan(300);
    await waitHolders([second, third, fourth], 'the single removal on Spacebar');
  });

  it('holds a replace that removes most of the list, changing nothing on Spacebar', async () => {
    const everyone = [...guild.memberIds];
    expect((await push('PUT', listUrl(), everyone)).status).toBe(200);
    await waitHolders(everyone, 'the whole list on Spacebar');
    const held = await push('PUT', listUrl(), everyone.slice(0, 1));
    expect(held.status).toBe(409);
    expect(await holders()).toEqual([...everyone].sort());
  });

  it('strips the role from the members the link gave it to when the link is deleted with --strip-roles', async () => {
    const res = await rolelink('link', 'delete', guild.guildId, guild.roleId, '--strip-roles', '--confirm-lockout');
    expect(res.code === 0 ? 'exit 0' : res.out).toBe('exit 0');
    expect(await waitHolders([], 'the strip on Spacebar')).toEqual([]);
  });

  it('needed each shim it runs with (a shim never applied stands for a deviation Spacebar no longer has)', () => {
    const unused = SHIMS.map((s) => s.name).filter((name) => !proxy!.applied.has(name));
    expect(unused).toEqual([]);
  });

  // Deviations the product meets without a shim: the first test pins what Spacebar does (the row), so the
  // expected failure after it fails for that reason only; it passes on Discord (and on the emulator).
  let badToken: Promise<string> | undefined;
  const doctorWithBadToken = () =>
    (badToken ??= execFileP(process.execPath, ['--import', 'tsx', 'services/cli/src/main.ts', 'doctor'], {
      cwd: clone,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(dbName),
        REDIS_URL,
        QUEUE_PREFIX: `${queuePrefix}-badtoken`,
        PLATFORM_API_URL: proxy!.apiBase,
        PLATFORM_BOT_TOKEN: 'not-a-spacebar-token',
      },
      timeout: 120_000,
    }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? '',
    ));

  it('row6-bad-token-400: Spacebar refuses a bad token with 400, and doctor fails the token check on it', async () => {
    const out = await doctorWithBadToken();
    expect(out).toMatch(/✗ Bot token/);
    expect(out).toMatch(/400/);
  });

  it.failing('row6-bad-token-400: doctor says the token is wrong (Discord answers 401)', async () => {
    expect(await doctorWithBadToken()).toContain('answers 401 Unauthorized to PLATFORM_BOT_TOKEN');
  });
});
