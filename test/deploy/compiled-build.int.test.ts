import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import {
  productionEnv,
  ROOT,
  startService,
  type RunningService,
  type ServiceName,
} from '../../scripts/service-process';
import { ADMIN_DATABASE_URL, databaseUrl, stampedName } from '../support/env';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';

// What the images run: `pnpm build` output started with plain node (no tsx), against real PostgreSQL
// and Redis. The build runs once for the file (seconds); everything else reuses it.
const run = promisify(execFile);

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: os.tmpdir(), env: { ...process.env, ...env } });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

function get(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('the compiled build (pnpm build)', () => {
  const dbName = stampedName('t');
  const prefix = testQueuePrefix();
  const running: RunningService[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rolelink-compiled-'));

  beforeAll(async () => {
    // `pnpm build` is the front end (Vite) and then scripts/build.ts. The front end is rebuilt only when
    // missing: scripts/test.sh builds it before jest, and the browser tests running beside this file
    // serve it (Vite empties its output directory first).
    if (!existsSync(path.join(ROOT, 'services/dashboard/web/dist/index.html')))
      await run('pnpm', ['--filter', '@rolelink/dashboard-web', 'build'], { cwd: ROOT });
    await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT });
    // An empty database: the compiled migrate script must build the schema itself.
    await admin(`CREATE DATABASE ${dbName}`);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await dropPrefix(prefix);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('applies every migration to an empty database with services/migrate/dist/migrate.js', async () => {
    const { code, out } = await node(
      ['--experimental-wasm-modules', '--no-warnings', path.join(ROOT, 'services/migrate/dist/migrate.js')],
      { DATABASE_URL: databaseUrl(dbName) },
    );
    expect(out).toMatch(/\d+ migration\(s\) applied/);
    expect(code).toBe(0);
    const c = new Client({ connectionString: databaseUrl(dbName) });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: string }>(
        'SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL',
      );
      const dirs = readdirSync(path.join(ROOT, 'prisma', 'migrations'), { withFileTypes: true }).filter((d) =>
        d.isDirectory(),
      );
      expect(Number(rows[0]!.n)).toBe(dirs.length);
    } finally {
      await c.end();
    }
  });

  it('starts every service with plain node until /readyz answers 200, and the dashboard serves the built front end', async () => {
    const env = productionEnv(databaseUrl(dbName), REDIS_URL, prefix);
    const names: ServiceName[] = ['api', 'plugin-broker', 'bot-worker', 'dashboard'];
    running.push(...(await Promise.all(names.map((n) => startService(n, 'compiled', env)))));
    for (const s of running) expect((await get(s.port, '/readyz')).status).toBe(200);
    const dashboard = running.find((s) => s.name === 'dashboard')!;
    const page = await get(dashboard.port, '/guilds/1');
    expect(page.status).toBe(200);
    expect(page.body).toBe(readFileSync(path.join(ROOT, 'services/dashboard/web/dist/index.html'), 'utf8'));
  });

  it("runs the rolelink bin: --help, and a command that loads Prisma's query compiler from beside the bundle", async () => {
    const bin = path.join(ROOT, 'services/cli/dist/main.js');
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const help = await node([bin, '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: rolelink <command>/);
    const health = await node([bin, 'health', '1100000000000000001', '1100000000000000011'], {
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      QUEUE_PREFIX: prefix,
    });
    expect(health.out).toContain('Role link not found');
    expect(health.code).not.toBe(0);
  });

  // The image's /app: scripts/image-tree.sh of the service (production dependencies + dist/). Started
  // from there, a dependency missing from the service's package.json would fail here, not in production.
  it('runs the API from its production deploy (what the image holds), which has no tsx', async () => {
    const out = path.join(tmp, 'api');
    await run('bash', [path.join(ROOT, 'scripts/image-tree.sh'), '@rolelink/api', out], { cwd: ROOT });
    expect(readdirSync(path.join(out, 'node_modules'))).not.toContain('tsx');
    expect(readdirSync(out).sort()).toEqual(['dist', 'node_modules', 'package.json']);
    // The npm packages' source maps are left out (the images parse every map they find); ours stays.
    const { stdout: maps } = await run('find', [path.join(out, 'node_modules'), '-name', '*.map', '-type', 'f']);
    expect(maps).toBe('');
    expect(existsSync(path.join(out, 'dist', 'main.js.map'))).toBe(true);
    const api = await startService('api', 'compiled', productionEnv(databaseUrl(dbName), REDIS_URL, prefix), {
      packageDir: out,
    });
    running.push(api);
    expect((await get(api.port, '/readyz')).status).toBe(200);
  }, 120_000);
});
