import { addChunk, cancelUpload, createUpload } from '@rolelink/db/list';
import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, userIds } from '../../../test/support/fixtures';
import { holdSweepLock, sweepLines } from '../../../test/support/sweeps';
import { sweepUploads } from './upload-sweep';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const sessions = async () => (await db.pool.query<{ id: string }>('SELECT id FROM upload_session')).rows;

it('collects closed uploads under its own lock, one replica at a time, keeping open ones and logging what it removed', async () => {
  const { linkId } = await seedLink(db);
  const open = await createUpload(db.pool, linkId);
  const closed = await createUpload(db.pool, linkId);
  await addChunk(db.pool, linkId, open, userIds(2, 840000000000000000n));
  await addChunk(db.pool, linkId, closed, userIds(3, 850000000000000000n));
  await cancelUpload(db.pool, linkId, closed);
  const { logger, lines } = memoryLogger();

  // Another API replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'uploads');
  expect(await sweepUploads(db.pool, logger)).toBe(0);
  expect(await sessions()).toHaveLength(2);
  await release();

  expect(await sweepUploads(db.pool, logger)).toBe(3);
  expect(await sessions()).toEqual([{ id: open }]);
  expect(await sweepUploads(db.pool, logger)).toBe(0);
  expect(sweepLines(lines, 'upload staging collected')).toEqual([{ rows: 3 }]);
});
