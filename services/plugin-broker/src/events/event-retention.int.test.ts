import { recordEvent, subscribeLinkEvents } from '@rolelink/db/events';
import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import { holdSweepLock, sweepLines } from '../../../../test/support/sweeps';
import { DEFAULT_EVENT_DELIVERY, type BrokerContext } from '../context';
import { sweepEventRetention } from './event-retention';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const states = async () =>
  (await db.pool.query<{ state: string }>('SELECT state FROM plugin_event ORDER BY id')).rows.map((r) => r.state);

it('deletes finished events past the retention under its own lock, keeping pending ones, logging what it removed', async () => {
  const link = await seedLink(db);
  await subscribeLinkEvents(db.pool, link.linkId, ['link.paused']);
  for (let i = 0; i < 4; i++) await recordEvent(db.pool, link.linkId, 'link.paused', { reason: `r${i}` });
  // Two delivered 8 days ago, one delivered yesterday, one still pending.
  await db.pool.query(
    `UPDATE plugin_event SET state = 'delivered', finished_at = now() - make_interval(days => CASE WHEN seq <= 2 THEN 8 ELSE 1 END)
      WHERE link_id = $1 AND seq <= 3`,
    [link.linkId],
  );
  const { logger, lines } = memoryLogger();
  const ctx = { db: db.pool, logger, events: { ...DEFAULT_EVENT_DELIVERY, retentionDays: 7 } } as BrokerContext;

  // Another broker replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'event-retention');
  expect(await sweepEventRetention(ctx)).toBe(0);
  expect(await states()).toEqual(['delivered', 'delivered', 'delivered', 'pending']);
  await release();

  expect(await sweepEventRetention(ctx)).toBe(2);
  expect(await states()).toEqual(['delivered', 'pending']);
  expect(sweepLines(lines, 'plugin events past retention deleted')).toEqual([{ rows: 2, retentionDays: 7 }]);
});
