import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import {
  purgeNotifications,
  recordGuildOutageNotifications,
  recordLinkBlockedNotification,
} from './notifications.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const G = '410000000000000001';

describe('notifications repository (notification)', () => {
  it('purges delivered notifications past the retention in batches, keeping pending rows and each plugin’s latest state', async () => {
    const insert = (kind: string, delivery: string, daysAgo: number, dedupeKey: string | null = null) =>
      db.pool.query(
        `INSERT INTO notification (guild_id, kind, delivery, dedupe_key, created_at) VALUES ($1, $2, $3, $4, now() - make_interval(days => $5))`,
        [G, kind, delivery, dedupeKey, daysAgo],
      );
    for (let i = 0; i < 5; i++) await insert('removal_held', 'sent', 100);
    await insert('removal_held', 'pending', 100);
    await insert('plugin_unhealthy', 'sent', 120, 'plugin:1');
    await insert('plugin_recovered', 'sent', 110, 'plugin:1');
    await insert('removal_held', 'sent', 10);
    expect(await purgeNotifications(db.pool, 90, 2)).toBe(6);
    const { rows } = await db.pool.query<{ kind: string; delivery: string }>(
      'SELECT kind, delivery FROM notification ORDER BY id',
    );
    expect(rows).toEqual([
      { kind: 'removal_held', delivery: 'pending' },
      { kind: 'plugin_recovered', delivery: 'sent' },
      { kind: 'removal_held', delivery: 'sent' },
    ]);
  });

  it('tells the owner why a link paused: the bot out of the server (each enabled link) or a role it may not change', async () => {
    await db.pool.query('TRUNCATE notification, guild, role_link CASCADE');
    const a = await seedLink(db);
    const b = await seedLink(db, { guildId: a.guildId });
    await seedLink(db, { guildId: a.guildId, enabled: false });
    await recordGuildOutageNotifications(db.pool, a.guildId);
    await recordLinkBlockedNotification(db.pool, b.linkId, 'mfa_required');
    const { rows } = await db.pool.query('SELECT role_id::text, kind, detail FROM notification ORDER BY id');
    expect(rows).toEqual([
      { role_id: a.roleId, kind: 'link_paused', detail: { state: 'blocked', reason: 'bot_not_in_guild' } },
      { role_id: b.roleId, kind: 'link_paused', detail: { state: 'blocked', reason: 'bot_not_in_guild' } },
      { role_id: b.roleId, kind: 'link_paused', detail: { state: 'blocked', reason: 'mfa_required' } },
    ]);
  });
});
