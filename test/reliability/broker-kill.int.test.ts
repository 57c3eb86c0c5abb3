import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLink, type AdminDeps } from '@rolelink/admin';
import { PluginCallMessage } from '@rolelink/contracts';
import { hashToken } from '@rolelink/domain';
import { BrokerClient } from '@rolelink/broker-client';
import { PluginJobs, producerConnection } from '@rolelink/queue';
import { AppError, silentLogger } from '@rolelink/runtime';
import { json, startTestPlugin, type TestPlugin } from '../../services/plugin-broker/test/support/test-plugin';
import { createTestDb, type TestDb } from '../support/db';
import { seedGuild, snowflake } from '../support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';
import { report } from './figures';
import { freePort } from '../../scripts/free-port';

// Faults: the plugin broker is SIGKILLed while it is calling a plugin's /register for a link
// being created. The admin must get the §7 502 (not a hang), no half-created link may remain (no row, no
// list, a token that opens nothing), and creating the link again must work once a broker runs.

const ROOT = path.resolve(__dirname, '..', '..');
const KEY = Buffer.alloc(32, 3);

let db: TestDb;
let plugin: TestPlugin;
let prefix: string;
let caDir: string;
let client: BrokerClient;
let jobs: PluginJobs;
let redis: ReturnType<typeof producerConnection>;
// One port for every broker of the test: the client keeps its URL across the kill, as a Service does.
let port: number;
const INTERNAL_TOKEN = 'b'.repeat(64);
const brokers = new Set<ChildProcess>();

/** A broker process, once its /readyz answers 200 (it takes jobs and internal calls from then on). */
async function startBroker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/plugin-broker/src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      ROLELINK_SECRET_KEY: KEY.toString('hex'),
      ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: path.join(caDir, 'ca.pem'),
      BROKER_PORT: String(port),
      BROKER_INTERNAL_TOKEN: INTERNAL_TOKEN,
      BROKER_HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
    },
  });
  brokers.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  child.once('exit', (code) => {
    brokers.delete(child);
    if (code !== null && code !== 0) console.error(`broker exited ${code}: ${stderr}`);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the broker did not become ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  db = await createTestDb();
  plugin = await startTestPlugin();
  prefix = testQueuePrefix();
  caDir = mkdtempSync(path.join(os.tmpdir(), 'rl-ca-'));
  writeFileSync(path.join(caDir, 'ca.pem'), plugin.ca);
  redis = producerConnection(REDIS_URL);
  port = await freePort();
  client = new BrokerClient({ baseUrl: `http://127.0.0.1:${port}`, token: INTERNAL_TOKEN, logger: silentLogger() });
  jobs = new PluginJobs(redis, prefix, silentLogger());
});
afterAll(async () => {
  for (const b of brokers) b.kill('SIGKILL');
  await jobs?.close();
  redis?.disconnect();
  await plugin?.close();
  await dropPrefix(prefix);
  await db?.drop();
  rmSync(caDir, { recursive: true, force: true });
});

const deps = (): AdminDeps => ({
  db,
  secretKey: () => KEY,
  allowPrivatePluginHosts: ['127.0.0.1'],
  plugin: { register: (id) => client.register(id), deleteConfig: (input) => jobs.deleteConfig(input) },
  requestSync: () => Promise.resolve(),
});

describe('plugin broker SIGKILLed while a link is being created', () => {
  it('answers 502, leaves no half-created link, and a retry with a new broker works', async () => {
    const guildId = await seedGuild(db, { plan: 'premium' });
    const roleId = snowflake();
    const tokens: string[] = [];
    // The first /register never answers: the broker is mid-call when it is killed.
    let answer = false;
    let registerSeen!: () => void;
    const seen = new Promise<void>((r) => (registerSeen = r));
    plugin.on('POST /register', (req, res) => {
      tokens.push(String(req.headers.authorization).replace(/^Token /, ''));
      registerSeen();
      if (answer) json(res, 200, {});
    });

    const broker = await startBroker();
    const started = Date.now();
    const creating = createLink(deps(), { guildId, roleId, pluginUrl: plugin.url }).then(
      () => null,
      (e: unknown) => e,
    );
    // If the broker failed before reaching the plugin, say so instead of waiting forever.
    const early = await Promise.race([seen.then(() => null), creating]);
    if (early)
      throw new Error(
        `the broker failed before reaching the plugin: ${early instanceof AppError ? JSON.stringify(early.toBody()) : (early as Error).message}`,
      );
    broker.kill('SIGKILL');
    const err = await creating;
    const answeredMs = Date.now() - started;
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).status, (err as AppError).message]).toEqual([502, PluginCallMessage.register]);

    const rows = async () =>
      (await db.pool.query('SELECT id FROM role_link WHERE guild_id = $1 AND role_id = $2', [guildId, roleId]))
        .rowCount;
    const halfCreated = await rows();
    const orphanLists =
      (
        await db.pool.query(
          'SELECT 1 FROM link_user lu WHERE NOT EXISTS (SELECT 1 FROM role_link l WHERE l.id = lu.link_id)',
        )
      ).rowCount ?? 0;
    const firstTokenOpens =
      (await db.pool.query('SELECT 1 FROM role_link WHERE token_hash = $1', [hashToken(tokens[0]!)])).rowCount ?? 0;

    answer = true;
    await startBroker();
    const created = await createLink(deps(), { guildId, roleId, pluginUrl: plugin.url });
    const stored = await db.pool.query<{ token_hash: Buffer }>('SELECT token_hash FROM role_link WHERE id = $1', [
      created.link_id,
    ]);

    report([
      {
        scenario: 'broker-kill',
        name: 'time until the admin got the 502 (ms)',
        value: answeredMs,
        goal: '≤ the register deadline, 7,000 + 1,000',
        met: answeredMs <= 8_000,
      },
      {
        scenario: 'broker-kill',
        name: 'half-created links left',
        value: (halfCreated ?? 0) + orphanLists,
        goal: '0',
        met: halfCreated === 0 && orphanLists === 0,
      },
      {
        scenario: 'broker-kill',
        name: 'links the first token still opens',
        value: firstTokenOpens,
        goal: '0',
        met: firstTokenOpens === 0,
      },
      {
        scenario: 'broker-kill',
        name: 'retry with a new broker',
        value: created.link_id ? 'created' : 'failed',
        goal: 'created',
        met: Boolean(created.link_id),
      },
    ]);
    expect({ halfCreated, orphanLists, firstTokenOpens }).toEqual({
      halfCreated: 0,
      orphanLists: 0,
      firstTokenOpens: 0,
    });
    expect(answeredMs).toBeLessThanOrEqual(8_000);
    expect(await rows()).toBe(1);
    // The link holds the token the plugin was given on the retry.
    expect(Buffer.from(stored.rows[0]!.token_hash).equals(hashToken(tokens[tokens.length - 1]!))).toBe(true);
  }, 90_000);
});
