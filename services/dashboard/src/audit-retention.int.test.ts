import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { holdSweepLock, sweepLines } from '../../../test/support/sweeps';
import { sweepAuditRetention } from './audit-retention';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const entries = async () =>
  (await db.pool.query<{ actor_name: string }>('SELECT actor_name FROM admin_audit ORDER BY id')).rows.map(
    (r) => r.actor_name,
  );

it('deletes audit entries past the retention under its own lock, one replica at a time, logging what it removed', async () => {
  await db.pool.query(
    `INSERT INTO admin_audit (guild_id, actor_name, via, action, at)
     SELECT 410000000000000003, 'old', 'cli', 'plan_changed', now() - interval '400 days' FROM generate_series(1, 3)
     UNION ALL SELECT 410000000000000003, 'recent', 'cli', 'plan_changed', now() - interval '300 days'`,
  );
  const { logger, lines } = memoryLogger();

  // Another replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'audit-retention');
  expect(await sweepAuditRetention(db.pool, 365, logger)).toBe(0);
  expect(await entries()).toEqual(['old', 'old', 'old', 'recent']);
  await release();

  expect(await sweepAuditRetention(db.pool, 365, logger)).toBe(3);
  expect(await entries()).toEqual(['recent']);
  expect(await sweepAuditRetention(db.pool, 365, logger)).toBe(0);
  expect(sweepLines(lines, 'audit entries past retention deleted')).toEqual([{ rows: 3, retentionDays: 365 }]);
});
