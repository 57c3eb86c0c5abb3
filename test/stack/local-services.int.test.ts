import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { answers, ensurePostgres, ensureRedis, freePort } from '../../scripts/local-services';
import { redisPings } from '../../scripts/local/redis-server';

// The fallbacks of scripts/local-services.ts for real: a DATABASE_URL / REDIS_URL on a loopback port
// where nothing answers gets an embedded PostgreSQL / a redis-server on that port, stopped afterwards.
describe('local services', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-services-'));
  // As root the embedded PostgreSQL runs as the `postgres` user, which must be able to enter the dir.
  chmodSync(dataDir, 0o711);
  const lines: string[] = [];
  const log = (m: string) => lines.push(m);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses the PostgreSQL and Redis at the given URLs when they answer', async () => {
    const pg = await ensurePostgres({
      log,
      env: { DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
    });
    const redis = await ensureRedis({ log, env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } });
    expect(pg.embedded).toBe(false);
    expect(redis.embedded).toBe(false);
  });

  it('starts an embedded PostgreSQL on the port of a loopback DATABASE_URL where nothing answers, and stops it', async () => {
    const port = await freePort();
    const pg = await ensurePostgres({
      log,
      dataDir,
      env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/postgres` },
    });
    try {
      expect(pg.embedded).toBe(true);
      expect(new URL(pg.adminUrl).port).toBe(String(port));
      const client = new Client({ connectionString: pg.adminUrl });
      await client.connect();
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      await client.end();
      expect(rows[0]?.v).toMatch(/^\d+/);
    } finally {
      await pg.stop();
    }
    expect(await answers('127.0.0.1', port)).toBe(false);
  }, 120_000);

  it('keeps the embedded data across restarts', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/postgres` };
    const first = await ensurePostgres({ log, dataDir, env });
    const c1 = new Client({ connectionString: first.adminUrl });
    await c1.connect();
    await c1.query('CREATE TABLE IF NOT EXISTS kept (v text)');
    await c1.query("INSERT INTO kept VALUES ('still here')");
    await c1.end();
    await first.stop();
    const second = await ensurePostgres({ log, dataDir, env });
    try {
      const c2 = new Client({ connectionString: second.adminUrl });
      await c2.connect();
      const { rows } = await c2.query<{ v: string }>('SELECT v FROM kept');
      await c2.end();
      expect(rows.map((r) => r.v)).toContain('still here');
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('starts a redis-server on the port of a loopback REDIS_URL where nothing answers, and stops it', async () => {
    const port = await freePort();
    const redis = await ensureRedis({ log, dataDir, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      expect(redis.embedded).toBe(true);
      expect(await redisPings('127.0.0.1', port)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(await answers('127.0.0.1', port)).toBe(false);
  }, 60_000);
});
