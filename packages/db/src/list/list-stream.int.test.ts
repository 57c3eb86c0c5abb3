import { text } from 'node:stream/consumers';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { addUsers } from './list-single.repo';
import { streamUserIdsCsv, streamUserIdsJson } from './list-stream';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('list stream (link_user out through COPY)', () => {
  it("streams a link's user IDs in ascending order as JSON array elements", async () => {
    const { linkId } = await seedLink(db);
    const ids = userIds(3, 1010000000000000000n);
    await addUsers(db.pool, linkId, [ids[2]!, ids[0]!, ids[1]!], 100);
    await addUsers(db.pool, (await seedLink(db)).linkId, userIds(2, 1020000000000000000n), 100); // another link's rows stay out
    const { stream, done } = await streamUserIdsJson(db.pool, linkId);
    const body = await text(stream);
    await done;
    expect(JSON.parse(`[${body}]`)).toEqual(ids);
  });

  it('streams an empty list as nothing', async () => {
    const { linkId } = await seedLink(db);
    const { stream, done } = await streamUserIdsJson(db.pool, linkId);
    expect(await text(stream)).toBe('');
    await done;
  });

  it('writes the CSV export with the lowest synced-limit users marked synced', async () => {
    const { linkId } = await seedLink(db);
    const ids = userIds(3, 1030000000000000000n);
    await addUsers(db.pool, linkId, ids, 100);
    const { stream, done } = await streamUserIdsCsv(db.pool, linkId, 2);
    const body = await text(stream);
    await done;
    expect(body).toBe(`user_id,synced\n${ids[0]},t\n${ids[1]},t\n${ids[2]},f\n`);
  });

  it('refuses a link id or limit that is not a number before touching the database', async () => {
    await expect(streamUserIdsJson(db.pool, '1; DROP TABLE link_user')).rejects.toThrow('invalid link id');
    await expect(streamUserIdsCsv(db.pool, '1', -1)).rejects.toThrow('invalid synced limit');
  });

  it('discards its connection when the reader goes away mid-stream, and the pool goes on', async () => {
    const { linkId } = await seedLink(db);
    await addUsers(db.pool, linkId, userIds(5_000, 1040000000000000000n), 10_000);
    const { stream, done } = await streamUserIdsJson(db.pool, linkId);
    stream.destroy();
    await expect(done).rejects.toThrow('user list stream closed before its end');
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM link_user WHERE link_id = $1', [
      linkId,
    ]);
    expect(rows[0]!.n).toBe(5_000);
  });
});
