import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import {
  countLinksByHealth,
  HEALTH_HISTORY_PER_PLUGIN,
  healthHistory,
  pluginUrlsAfter,
  pruneUnusedPlugins,
  recordHealth,
} from './health.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const PLUGIN = 'https://plugin.example.com';

describe('health repository (plugin_health_check)', () => {
  it('keeps the newest checks of a plugin, newest first', async () => {
    for (let i = 0; i < HEALTH_HISTORY_PER_PLUGIN + 3; i++) {
      await recordHealth(
        db.pool,
        'https://busy.example.com',
        { status: 'healthy', latencyMs: i, detail: { i } },
        new Date(),
      );
    }
    const history = await healthHistory(db.pool, 'https://busy.example.com');
    expect(history).toHaveLength(HEALTH_HISTORY_PER_PLUGIN);
    expect(history[0]!.latencyMs).toBe(HEALTH_HISTORY_PER_PLUGIN + 2);
    expect(history[0]!.detail).toEqual({ i: HEALTH_HISTORY_PER_PLUGIN + 2 });
  });

  it('stores a check as given: its status, latency, detail and time (UTC, as Prisma wrote it), and a trim in the same transaction', async () => {
    const at = new Date('2026-03-01T23:30:00.123Z');
    await recordHealth(
      db.pool,
      'https://one.example.com',
      { status: 'unreachable', latencyMs: null, detail: { reason: 'timeout' } },
      at,
    );
    expect(await healthHistory(db.pool, 'https://one.example.com')).toEqual([
      { status: 'unreachable', latencyMs: null, detail: { reason: 'timeout' }, checkedAt: at },
    ]);
    const { rows } = await db.pool.query<{ utc: string }>(
      "SELECT to_char(checked_at, 'YYYY-MM-DD HH24:MI:SS.MS') AS utc FROM plugin_health_check WHERE plugin_url = 'https://one.example.com'",
    );
    expect(rows).toEqual([{ utc: '2026-03-01 23:30:00.123' }]);
    // Inside a caller's transaction the check joins it: rolled back with it.
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await recordHealth(c, 'https://one.example.com', { status: 'healthy', latencyMs: 1, detail: {} }, new Date());
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    expect(await healthHistory(db.pool, 'https://one.example.com')).toHaveLength(1);
  });

  it("counts links by their plugin's latest check and forgets plugins no link uses", async () => {
    await seedLink(db);
    await seedLink(db);
    await recordHealth(db.pool, PLUGIN, { status: 'healthy', latencyMs: 5, detail: {} }, new Date());
    await recordHealth(db.pool, PLUGIN, { status: 'degraded', latencyMs: 9, detail: {} }, new Date());
    expect(await countLinksByHealth(db.pool)).toEqual({ degraded: 2 });
    expect(await pruneUnusedPlugins(db.pool)).toBe(HEALTH_HISTORY_PER_PLUGIN + 1);
    expect(await healthHistory(db.pool, 'https://busy.example.com')).toEqual([]);
    expect(await healthHistory(db.pool, 'https://one.example.com')).toEqual([]);
    expect(await healthHistory(db.pool, PLUGIN)).toHaveLength(2);
  });

  it('pages through the distinct plugin URLs of the links', async () => {
    expect(await pluginUrlsAfter(db.pool, '', 10)).toEqual([PLUGIN]);
    expect(await pluginUrlsAfter(db.pool, PLUGIN, 10)).toEqual([]);
  });
});
