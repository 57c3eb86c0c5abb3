import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink } from '../../../test/support/fixtures';
import { holdSweepLock, sweepLines } from '../../../test/support/sweeps';
import { sweepIdempotencyKeys } from './idempotency-sweep';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const keys = async () =>
  (await db.pool.query<{ key: string }>('SELECT key FROM idempotency_key ORDER BY key')).rows.map((r) => r.key);

it('deletes keys past their 24 hours under its own lock, one replica at a time, logging what it removed', async () => {
  const { linkId } = await seedLink(db);
  await db.pool.query(
    `INSERT INTO idempotency_key (link_id, key, fingerprint, status, created_at)
     VALUES ($1, 'expired-1', '\\x00', 200, now() - interval '25 hours'), ($1, 'expired-2', '\\x00', 200, now() - interval '25 hours'),
            ($1, 'kept', '\\x00', 200, now() - interval '23 hours')`,
    [linkId],
  );
  const { logger, lines } = memoryLogger();

  // Another API replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'idempotency');
  expect(await sweepIdempotencyKeys(db.pool, logger)).toBe(0);
  expect(await keys()).toEqual(['expired-1', 'expired-2', 'kept']);
  await release();

  expect(await sweepIdempotencyKeys(db.pool, logger)).toBe(2);
  expect(await keys()).toEqual(['kept']);
  expect(sweepLines(lines, 'expired idempotency keys collected')).toEqual([{ rows: 2 }]);
});
