import request from 'supertest';
import { startApiHarness, auth, type ApiHarness } from '../../../test/support/api';
import { listOf, seedLink, userIds } from '../../../test/support/fixtures';
import { RemoveBatcher } from './remove-batcher';
import { fromStored, toStored } from '@rolelink/db/client';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const count = async (linkId: string) =>
  (await h.db.pool.query<{ n: number }>('SELECT user_count AS n FROM role_link WHERE id = $1', [linkId])).rows[0]!.n;
const fill = async (linkId: string, ids: string[]) => {
  await h.db.pool.query(
    `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
    [linkId, ids],
  );
  await h.db.pool.query('UPDATE role_link SET user_count = $2 WHERE id = $1', [linkId, ids.length]);
};

describe('batched single removals (DELETE /users/:userId under concurrency)', () => {
  it('removes every one of many concurrent users, keeps the counter exact, journals each removal and asks for one sync', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const ids = userIds(1_200);
    await fill(link.linkId, ids);
    const batcher = new RemoveBatcher({ pool: h.db.pool, sync: h.sync });
    // 1,100 present users and 100 never listed, all at once.
    const gone = ids.slice(100);
    const absent = userIds(100, 300000000000000000n);
    const results = await Promise.all([...gone, ...absent].map((id) => batcher.remove(link.linkId, id)));
    expect(results.slice(0, gone.length).every((r) => r.removed)).toBe(true);
    expect(results.slice(gone.length).some((r) => r.removed)).toBe(false);
    expect(await listOf(h.db, link.linkId)).toEqual(ids.slice(0, 100));
    expect(await count(link.linkId)).toBe(100);
    const { rows } = await h.db.pool.query<{ user_id: string }>(
      `SELECT ${fromStored('user_id')} AS user_id FROM list_change WHERE link_id = $1 AND op = 'remove' ORDER BY list_change.user_id`,
      [link.linkId],
    );
    expect(rows.map((r) => r.user_id)).toEqual(gone);
    // Every answer carries the version its statement left; the last statement's is the link's.
    const { rows: v } = await h.db.pool.query<{ v: string }>(
      'SELECT list_version::text AS v FROM role_link WHERE id = $1',
      [link.linkId],
    );
    expect(results.at(-1)!.listVersion).toBe(v[0]!.v);
    const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
    expect(jobs.map((j) => (j.data as { linkId: string }).linkId)).toEqual([link.linkId]);
  });

  it('answers removed once when the same user is deleted many times at once', async () => {
    const link = await seedLink(h.db);
    const [id] = userIds(1);
    await fill(link.linkId, [id!]);
    const url = `/api/role-link/${link.guildId}/${link.roleId}/users/${id}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => request(h.app).delete(url).set(auth(link.token)).expect(200)),
    );
    expect(answers.filter((a) => (a.body as { data: { removed: boolean } }).data.removed === true)).toHaveLength(1);
    expect(await count(link.linkId)).toBe(0);
  });
});
