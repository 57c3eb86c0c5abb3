import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { addChunk, cancelUpload, collectUploadGarbage, createUpload } from './uploads.repo';
import { bigintArrayLiteral } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function staged(uploadId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM upload_staged WHERE upload_id = $1',
    [uploadId],
  );
  return rows[0]!.n;
}

describe('uploads repository (upload_session, upload_staged)', () => {
  it('stages chunks and counts them and their ids before deduplication', async () => {
    const { linkId } = await seedLink(db);
    const id = await createUpload(db.pool, linkId);
    const ids = userIds(3, 810000000000000000n);
    expect(await addChunk(db.pool, linkId, id, ids)).toEqual({ chunks: 1, users: 3 });
    expect(await addChunk(db.pool, linkId, id, ids.slice(0, 2))).toEqual({ chunks: 2, users: 5 });
    expect(await addChunk(db.pool, linkId, id, [])).toEqual({ chunks: 3, users: 5 });
    expect(await staged(id)).toBe(5);
  });

  it("refuses chunks for another link's, a cancelled or an expired session", async () => {
    const { linkId } = await seedLink(db);
    const other = await seedLink(db);
    const id = await createUpload(db.pool, linkId);
    const ids = userIds(1, 820000000000000000n);
    expect(await addChunk(db.pool, other.linkId, id, ids)).toBeNull();
    expect(await cancelUpload(db.pool, other.linkId, id)).toBe(false);
    expect(await cancelUpload(db.pool, linkId, id)).toBe(true);
    expect(await cancelUpload(db.pool, linkId, id)).toBe(false);
    expect(await addChunk(db.pool, linkId, id, ids)).toBeNull();
    const expired = await createUpload(db.pool, linkId);
    await db.pool.query(`UPDATE upload_session SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    expect(await addChunk(db.pool, linkId, expired, ids)).toBeNull();
    expect(await cancelUpload(db.pool, linkId, expired)).toBe(false);
  });

  it('stages a chunk in the caller transaction: rolled back with it', async () => {
    const { linkId } = await seedLink(db);
    const id = await createUpload(db.pool, linkId);
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      expect(await addChunk(c, linkId, id, userIds(2, 830000000000000000n))).toEqual({ chunks: 1, users: 2 });
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    expect(await staged(id)).toBe(0);
    expect(await addChunk(db.pool, linkId, id, [])).toEqual({ chunks: 1, users: 0 });
  });

  it('collects the staged rows and sessions of closed and expired uploads, a bounded number per sweep, and keeps open ones', async () => {
    await db.pool.query('DELETE FROM upload_staged');
    await db.pool.query('DELETE FROM upload_session');
    const { linkId } = await seedLink(db);
    const open = await createUpload(db.pool, linkId);
    const closed = await createUpload(db.pool, linkId);
    const expired = await createUpload(db.pool, linkId);
    await addChunk(db.pool, linkId, open, userIds(2, 840000000000000000n));
    await addChunk(db.pool, linkId, closed, userIds(2, 850000000000000000n));
    await addChunk(db.pool, linkId, expired, userIds(2, 860000000000000000n));
    await cancelUpload(db.pool, linkId, closed);
    await db.pool.query(`UPDATE upload_session SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    // maxRows reached after the first session's rows: the sweep stops, the rest waits for the next one.
    expect(await collectUploadGarbage(db.pool, 1)).toBe(2);
    expect(await collectUploadGarbage(db.pool)).toBe(2);
    expect(await staged(closed)).toBe(0);
    expect(await staged(expired)).toBe(0);
    expect(await staged(open)).toBe(2);
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM upload_session');
    expect(rows).toEqual([{ id: open }]);
    expect(await collectUploadGarbage(db.pool)).toBe(0);
  });

  it('writes a bigint[] literal from decimal ids, and refuses anything else', () => {
    expect(bigintArrayLiteral([])).toBe('{}');
    expect(bigintArrayLiteral(['1', '23'])).toBe('{1,23}');
    expect(() => bigintArrayLiteral(['1', '2},{3'])).toThrow('user ids must be strings of decimal digits');
    expect(() => bigintArrayLiteral(['12a'])).toThrow('user ids must be strings of decimal digits');
  });
});
