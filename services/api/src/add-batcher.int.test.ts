import request from 'supertest';
import { startApiHarness, auth, type ApiHarness, bodyOf, type UserAddedBody } from '../../../test/support/api';
import { listOf, seedLink, userIds } from '../../../test/support/fixtures';
import { AddBatcher } from './add-batcher';
import { toStored } from '@rolelink/db/client';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const count = async (linkId: string) =>
  (await h.db.pool.query<{ n: number }>('SELECT user_count AS n FROM role_link WHERE id = $1', [linkId])).rows[0]!.n;

describe('batched single adds (POST /users/:userId under concurrency)', () => {
  it('adds every one of many concurrent distinct users, keeps the counter exact and asks for one sync', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const batcher = new AddBatcher({ pool: h.db.pool, sync: h.sync });
    const ids = userIds(1_200);
    const results = await Promise.all(ids.map((id) => batcher.add(link.linkId, id, 30_000_000)));
    expect(results.every((r) => r.added && !r.atLimit)).toBe(true);
    expect(await listOf(h.db, link.linkId)).toEqual(ids);
    expect(await count(link.linkId)).toBe(1_200);
    const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
    expect(jobs.map((j) => (j.data as { linkId: string }).linkId)).toEqual([link.linkId]);
  });

  it('answers added once when the same user is posted many times at once', async () => {
    const link = await seedLink(h.db);
    const [id] = userIds(1);
    const url = `/api/role-link/${link.guildId}/${link.roleId}/users/${id}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => request(h.app).post(url).set(auth(link.token)).expect(200)),
    );
    expect(answers.filter((a) => bodyOf<UserAddedBody>(a).data.added === true)).toHaveLength(1);
    expect(await count(link.linkId)).toBe(1);
  });

  it('fills the last free places in arrival order and refuses the rest with the stored-limit error', async () => {
    const link = await seedLink(h.db, { plan: 'free' });
    await h.db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [link.linkId, userIds(9_995)],
    );
    await h.db.pool.query('UPDATE role_link SET user_count = 9995 WHERE id = $1', [link.linkId]);
    const batcher = new AddBatcher({ pool: h.db.pool, sync: h.sync });
    const extra = userIds(20, 300000000000000000n);
    const results = await Promise.all([...extra, userIds(1)[0]!].map((id) => batcher.add(link.linkId, id, 10_000)));
    expect(results.slice(0, 5).every((r) => r.added)).toBe(true);
    expect(results.slice(5, 20).every((r) => !r.added && r.atLimit)).toBe(true);
    // Already on the list: not a limit error. Every answer carries the version its statement left, the last one the link's.
    const { rows } = await h.db.pool.query<{ v: string }>(
      'SELECT list_version::text AS v FROM role_link WHERE id = $1',
      [link.linkId],
    );
    expect(results[20]).toEqual({ added: false, atLimit: false, listVersion: rows[0]!.v });
    expect(await count(link.linkId)).toBe(10_000);
    expect(await listOf(h.db, link.linkId)).toHaveLength(10_000);
  });
});
