import { createTestDb, type TestDb } from '../../../test/support/db';
import { purgeNotifications } from './notifications.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const G = '410000000000000001';

describe('notifications repository (notification)', () => {
  it('purges delivered notifications past the retention in batches, keeping pending rows and each plugin’s latest state', async () => {
    const insert = (kind: string, delivery: string, daysAgo: number, dedupeKey: string | null = null) =>
      db.pool.query(`INSERT INTO notification (guild_id, kind, delivery, dedupe_key, created_at) VALUES ($1, $2, $3, $4, now() - make_interval(days => $5))`, [G, kind, delivery, dedupeKey, daysAgo]);
    for (let i = 0; i < 5; i++) await insert('removal_held', 'sent', 100);
    await insert('removal_held', 'pending', 100);
    await insert('plugin_unhealthy', 'sent', 120, 'plugin:1');
    await insert('plugin_recovered', 'sent', 110, 'plugin:1');
    await insert('removal_held', 'sent', 10);
    expect(await purgeNotifications(db.pool, 90, 2)).toBe(6);
    const { rows } = await db.pool.query<{ kind: string; delivery: string }>('SELECT kind, delivery FROM notification ORDER BY id');
    expect(rows).toEqual([
      { kind: 'removal_held', delivery: 'pending' },
      { kind: 'plugin_recovered', delivery: 'sent' },
      { kind: 'removal_held', delivery: 'sent' },
    ]);
  });
});
