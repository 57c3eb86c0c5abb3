// The `./rolelink` launcher at the repository root: runs the CLI for a user whose PATH has no pnpm
// (scripts/start.sh installs it into ~/.local/bin only for itself), from any directory, with its exit code.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { REDIS_URL, testQueuePrefix } from '../../../test/support/redis';

const LAUNCHER = path.resolve(__dirname, '..', '..', '..', 'rolelink');
const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'rolelink-cwd-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

/** Runs the launcher from a foreign directory with node's directory and the system's on PATH only. */
function launch(...args: string[]) {
  return launchWith({}, ...args);
}

function launchWith(env: Record<string, string>, ...args: string[]) {
  const PATH = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  return spawnSync(LAUNCHER, args, {
    cwd: elsewhere,
    env: { PATH, HOME: elsewhere, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** A port nothing listens on (it was just free): a connection to it is refused. */
async function closedPort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('./rolelink', () => {
  it('runs the CLI without pnpm from another directory and forwards its exit code', () => {
    const help = launch('help');
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: rolelink <command>/);
    expect(launch().status).toBe(2);
    const unknown = launch('frobnicate', '--json');
    expect(unknown.status).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({
      statusCode: 400,
      message: 'unknown command: frobnicate (see rolelink help)',
    });
  });
});

describe('./rolelink and the stack scripts/start.sh started in the checkout', () => {
  let db: TestDb;
  let stackFile: string;
  let brokerPort: number;
  /** What the user's shell has: the stack's secrets (from .data/ in a real checkout), nothing of its addresses. */
  const secrets = {
    ROLELINK_SECRET_KEY: '11'.repeat(32),
    BROKER_INTERNAL_TOKEN: 'b'.repeat(64),
    ROLELINK_STACK_FILE: '',
  };

  beforeAll(async () => {
    db = await createTestDb();
    brokerPort = await closedPort();
    stackFile = path.join(elsewhere, 'stack.env');
    // As scripts/stack/cli-env.ts writes it for a stack on other ports; its broker is not running.
    writeFileSync(
      stackFile,
      [
        '# written by scripts/start.sh (pid 1) for ./rolelink; removed when that stack stops',
        `DATABASE_URL=${db.url}`,
        `REDIS_URL=${REDIS_URL}`,
        `QUEUE_PREFIX=${testQueuePrefix()}`,
        `BROKER_URL=http://127.0.0.1:${brokerPort}`,
        'ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS=127.0.0.1',
        'NODE_OPTIONS=--require /nonexistent', // not a name the launcher takes
      ].join('\n') + '\n',
    );
    secrets.ROLELINK_STACK_FILE = stackFile;
  });
  afterAll(() => db.drop());

  const create = (env: Record<string, string>, ...extra: string[]) =>
    launchWith(
      { ...secrets, ...env },
      'link',
      'create',
      '1100000000000000001',
      '1100000000000000011',
      '--plugin-url',
      'https://127.0.0.1:3443',
      ...extra,
    );

  it('reaches the stack’s addresses, and says the broker did not answer, where it looked and why, not that the plugin failed', async () => {
    const res = create({}, '--json');
    expect(res.status).toBe(1);
    const body = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as {
      statusCode: number;
      message: string;
      detail: string;
    };
    expect(body.statusCode).toBe(502);
    expect(body.message).toContain(
      `the plugin broker did not answer at http://127.0.0.1:${brokerPort} (BROKER_URL from ${stackFile}, which scripts/start.sh wrote`,
    );
    expect(body.message).toContain('The plugin was not called');
    expect(body.message).not.toMatch(/register with plugin server/i);
    expect(body.detail).toContain(`ECONNREFUSED 127.0.0.1:${brokerPort}`);
    // It used the stack's database: the link was inserted there, and taken back when the broker failed.
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM role_link');
    expect(rows).toEqual([{ n: 0 }]);
    const human = create({});
    expect(human.stderr).toMatch(
      new RegExp(
        `^error: the plugin broker did not answer at http://127\\.0\\.0\\.1:${brokerPort} \\(BROKER_URL from `,
        'm',
      ),
    );
  });

  it('lets the environment win over the stack’s file', async () => {
    const other = await closedPort();
    const res = create({ BROKER_URL: `http://127.0.0.1:${other}` }, '--json');
    const body = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as { message: string; detail: string };
    expect(body.message).toContain(`did not answer at http://127.0.0.1:${other} (BROKER_URL):`);
    expect(body.detail).toContain(`ECONNREFUSED 127.0.0.1:${other}`);
  });
});
