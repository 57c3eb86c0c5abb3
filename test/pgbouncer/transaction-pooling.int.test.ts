import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLink, type AdminDeps } from '@rolelink/admin';
import { BrokerClient } from '@rolelink/broker-client';
import { startEmulator, type RunningEmulator } from '@rolelink/platform-emulator';
import { PluginJobs, producerConnection } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { createPluginApp } from '../../examples/plugin-server/src/app';
import { demoMemberIds, pushList } from '../../examples/plugin-server/src/push';
import { Registrations } from '../../examples/plugin-server/src/registrations';
import { writeSelfSignedCert } from '../../examples/plugin-server/src/tls';
import { freePorts } from '../../scripts/free-port';
import { DEMO, demoSeed } from '../../scripts/stack/config';
import { createDb } from '@rolelink/db/client';
import { createTestDb, type TestDb } from '../support/db';
import { seedGuild } from '../support/fixtures';
import { PGBOUNCER, startPgBouncer, type PgBouncer } from '../support/pgbouncer';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';
import { waitFor } from '../support/until';

// The API, the plugin broker and the bot worker as processes (their main.ts), every pooled statement
// through a PgBouncer in transaction mode (DATABASE_URL …?pgbouncer=true) and their session-bound work on
// PostgreSQL directly (DATABASE_SESSION_URL), as docs/pgbouncer.md says to run them: a plugin's list push
// reaches the platform, its event reaches the plugin, and no advisory lock is left on a pooled connection.
// Needs Debian's pgbouncer package: without it the file is skipped with a warning, and fails instead when
// ROLELINK_REQUIRE_PGBOUNCER=1 (`pnpm test:pgbouncer`). It never installs anything.
const ROOT = path.resolve(__dirname, '..', '..');
const KEY = Buffer.alloc(32, 5);
const INTERNAL_TOKEN = 'p'.repeat(64);
const LISTED = 12;
// A listed user the platform's guild does not have: the worker reports it, the broker sends the event.
const STRANGER = '990000000000000001';

const required = process.env.ROLELINK_REQUIRE_PGBOUNCER === '1';
const describePgBouncer = PGBOUNCER || required ? describe : describe.skip;
if (!PGBOUNCER)
  console.warn(
    required
      ? 'ROLELINK_REQUIRE_PGBOUNCER=1 and no pgbouncer binary: the PgBouncer test fails (apt-get install -y pgbouncer)'
      : 'PgBouncer test skipped: no pgbouncer binary (apt-get install -y pgbouncer; ROLELINK_REQUIRE_PGBOUNCER=1 makes this a failure)',
  );

describePgBouncer('the services through PgBouncer in transaction pooling mode', () => {
  let db: TestDb;
  let bouncer: PgBouncer;
  let emulator: RunningEmulator;
  let prefix: string;
  let dir: string;
  const children: ChildProcess[] = [];
  const closers: (() => Promise<unknown> | void)[] = [];
  const events: string[] = [];
  let pluginUrl = '';
  const ports = { api: 0, broker: 0, worker: 0 };

  function startService(name: string, main: string, env: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: bouncer.url,
        DATABASE_SESSION_URL: db.url,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        ROLELINK_SECRET_KEY: KEY.toString('hex'),
        BROKER_INTERNAL_TOKEN: INTERNAL_TOKEN,
        ...env,
      },
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-6000)));
    child.once('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGTERM') console.error(`${name} exited ${code ?? signal}:\n${stderr}`);
    });
    children.push(child);
    return child;
  }

  const ready = (port: number) =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );

  beforeAll(async () => {
    if (!PGBOUNCER) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
    db = await createTestDb();
    bouncer = await startPgBouncer(db.url);
    prefix = testQueuePrefix();
    dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-pgbouncer-test-'));
    const [api, broker, worker] = await freePorts(3);
    Object.assign(ports, { api, broker, worker });

    emulator = await startEmulator({ port: 0, seed: demoSeed(50), botToken: DEMO.botToken });
    closers.push(() => emulator.close());

    // The example plugin over HTTPS: it pushes its list when registered (and once more on request), and
    // records the events it is sent.
    const tls = await writeSelfSignedCert(path.join(dir, 'cert.pem'), path.join(dir, 'key.pem'));
    const pluginServer = https.createServer({ cert: tls.cert, key: tls.key });
    await new Promise<void>((resolve) => pluginServer.listen(0, '127.0.0.1', resolve));
    pluginUrl = `https://127.0.0.1:${(pluginServer.address() as AddressInfo).port}`;
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    pluginServer.on(
      'request',
      createPluginApp({
        registrations: new Registrations(path.join(dir, 'plugin-state.json')),
        defaultCount: LISTED,
        log: (line) => events.push(line),
        publicUrl: pluginUrl,
        dashboardOrigins: [],
        onListWanted: (link) => {
          void pushList(apiUrl, link, [...demoMemberIds(DEMO.firstMemberId, LISTED), STRANGER], {
            retryForMs: 60_000,
          }).catch(() => undefined);
        },
      }),
    );
    closers.push(() => {
      pluginServer.closeAllConnections();
      return new Promise((resolve) => pluginServer.close(resolve));
    });

    startService('api', 'services/api/src/main.ts', { API_PORT: String(ports.api), API_HOST: '127.0.0.1' });
    startService('plugin-broker', 'services/plugin-broker/src/main.ts', {
      BROKER_PORT: String(ports.broker),
      BROKER_HOST: '127.0.0.1',
      ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem'),
      EVENT_SWEEP_EVERY_MS: '500',
    });
    startService('bot-worker', 'services/bot-worker/src/main.ts', {
      WORKER_PORT: String(ports.worker),
      PLATFORM_API_URL: emulator.apiBase,
      PLATFORM_BOT_TOKEN: DEMO.botToken,
      WORKER_CONCURRENCY: '4',
      NOTIFY_SWEEP_MS: '500',
    });
    const readiness = () => Promise.all(Object.values(ports).map(ready));
    await waitFor(readiness, (all) => all.every(Boolean), { timeoutMs: 180_000, what: 'every service ready' });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
          }),
      ),
    );
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    await bouncer?.stop();
    if (prefix) await dropPrefix(prefix);
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('syncs a pushed list to the platform and delivers its event, with no advisory lock left behind', async () => {
    await seedGuild(db, { id: DEMO.guildId, plan: 'premium', ownerId: DEMO.ownerId });
    const redis = producerConnection(REDIS_URL);
    const jobs = new PluginJobs(redis, prefix, silentLogger());
    const broker = new BrokerClient({
      baseUrl: `http://127.0.0.1:${ports.broker}`,
      token: INTERNAL_TOKEN,
      logger: silentLogger(),
    });
    const deps: AdminDeps = {
      db,
      secretKey: () => KEY,
      allowPrivatePluginHosts: ['127.0.0.1'],
      plugin: { register: (id) => broker.register(id), deleteConfig: (input) => jobs.deleteConfig(input) },
      requestSync: () => Promise.resolve(),
    };
    try {
      // The broker calls the plugin's /register; the plugin pushes its list to the API.
      await createLink(deps, { guildId: DEMO.guildId, roleId: DEMO.linkedRoleId, pluginUrl });
    } finally {
      await jobs.close();
      redis.disconnect();
    }

    // The bot worker applied the list on the platform.
    const listed = demoMemberIds(DEMO.firstMemberId, LISTED);
    const holders = async () => {
      const res = await fetch(`${emulator.url}/_emulator/guilds/${DEMO.guildId}/roles/${DEMO.linkedRoleId}/holders`);
      return ((await res.json()) as { holders: string[] }).holders;
    };
    const held = await waitFor(holders, (h) => listed.every((id) => h.includes(id)), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: `the ${LISTED} listed members holding the role`,
    });
    expect([...held].sort()).toEqual([...listed].sort());

    // The worker found the stranger missing from the guild; the broker delivered that event to the plugin.
    await waitFor(
      () => events.filter((line) => line.includes(`user ${STRANGER} is not in the guild`)),
      (lines) => lines.length > 0,
      { timeoutMs: 120_000, intervalMs: 500, what: 'the member.not_in_guild event at the plugin' },
    );

    // The pooled statements went through PgBouncer (its transactions for this database), ...
    const stats = await bouncer.show('STATS');
    const ours = stats.find((row) => row.database === db.name);
    expect(Number(ours?.total_xact_count ?? 0)).toBeGreaterThan(50);
    // ... and no advisory lock is held once the work is done: a session lock taken through the pooler
    // would stay with whichever server connection ran it.
    const locks = () =>
      db.pool
        .query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE l.locktype = 'advisory' AND d.datname = current_database()`,
        )
        .then((r) => r.rows[0]!.n);
    await waitFor(locks, (n) => n === 0, { timeoutMs: 60_000, intervalMs: 500, what: 'no advisory lock held' });
  }, 600_000);
});

describePgBouncer('named prepared statements through a transaction pooler', () => {
  let db: TestDb;
  let bouncer: PgBouncer;
  beforeAll(async () => {
    db = await createTestDb();
    // One server connection: every client's statements run on it, one transaction at a time.
    bouncer = await startPgBouncer(db.url, 1);
  }, 120_000);
  afterAll(async () => {
    await bouncer?.stop();
    await db?.drop();
  }, 120_000);

  /** The same named statement on two clients of the pool at once (two sessions to PgBouncer). */
  async function namedOnTwoClients(url: string): Promise<unknown> {
    const pooled = createDb(url, { max: 2 });
    const [a, b] = [await pooled.pool.connect(), await pooled.pool.connect()];
    const statement = { name: 'rolelink.pgbouncer-check', text: 'SELECT $1::int AS n', values: [1] };
    try {
      await a.query(statement);
      await b.query(statement);
      await a.query(statement);
      return null;
    } catch (err) {
      return err;
    } finally {
      a.release();
      b.release();
      await pooled.close();
    }
  }

  it('fails without pgbouncer=true (the premise), and works with it (statements sent unnamed)', async () => {
    const unmarked = new URL(bouncer.url);
    unmarked.searchParams.delete('pgbouncer');
    expect(String(await namedOnTwoClients(unmarked.toString()))).toMatch(
      /prepared statement "rolelink\.pgbouncer-check" (already exists|does not exist)/,
    );
    expect(await namedOnTwoClients(bouncer.url)).toBeNull();
  });
});
