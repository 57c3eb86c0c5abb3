import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { holdSweepLock, sweepLines } from '../../../../test/support/sweeps';
import { sweepNotificationRetention } from './notification-retention';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const left = async () =>
  (await db.pool.query<{ delivery: string }>('SELECT delivery FROM notification ORDER BY id')).rows.map(
    (r) => r.delivery,
  );

it('deletes delivered notifications past the retention under its own lock, keeping pending ones, logging what it removed', async () => {
  const insert = (delivery: string, daysAgo: number) =>
    db.pool.query(
      `INSERT INTO notification (guild_id, kind, delivery, created_at) VALUES (410000000000000001, 'removal_held', $1, now() - make_interval(days => $2))`,
      [delivery, daysAgo],
    );
  await insert('sent', 100);
  await insert('folded', 100);
  await insert('pending', 100);
  await insert('sent', 10);
  const { logger, lines } = memoryLogger();

  // Another worker replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'notification-retention');
  expect(await sweepNotificationRetention(db.pool, 90, logger)).toBe(0);
  expect(await left()).toEqual(['sent', 'folded', 'pending', 'sent']);
  await release();

  expect(await sweepNotificationRetention(db.pool, 90, logger)).toBe(2);
  expect(await left()).toEqual(['pending', 'sent']);
  expect(sweepLines(lines, 'notifications past retention deleted')).toEqual([{ rows: 2, retentionDays: 90 }]);
});
