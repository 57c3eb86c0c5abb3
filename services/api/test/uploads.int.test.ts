import request from 'supertest';
import { collectUploadGarbage, replaceList } from '@rolelink/db/list';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type ChunkAcceptedBody,
  type ShrinkBody,
  type UploadCreatedBody,
  type UserCountBody,
} from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const json = (r: request.Test, body: unknown) => r.set('Content-Type', 'application/json').send(JSON.stringify(body));

async function open(l: SeededLink): Promise<string> {
  const res = await request(h.app)
    .post(`${base(l)}/upload`)
    .set(auth(l.token))
    .expect(200);
  expect(bodyOf<UploadCreatedBody>(res).data.upload_id).toMatch(/^[0-9a-f-]{36}$/);
  return bodyOf<UploadCreatedBody>(res).data.upload_id;
}
const chunk = (l: SeededLink, id: string, ids: unknown) =>
  json(
    request(h.app)
      .post(`${base(l)}/upload/${id}/chunk`)
      .set(auth(l.token)),
    ids,
  );
const commit = (l: SeededLink, id: string) =>
  request(h.app)
    .post(`${base(l)}/upload/${id}/commit`)
    .set(auth(l.token));
const cancel = (l: SeededLink, id: string) =>
  request(h.app)
    .delete(`${base(l)}/upload/${id}`)
    .set(auth(l.token));
const stagedRows = async () =>
  Number((await h.db.pool.query<{ count: string }>('SELECT count(*) FROM upload_staged')).rows[0]!.count);

describe('chunked upload sessions (spec 3.2)', () => {
  it('is refused on the free plan with a clear 403', async () => {
    const link = await seedLink(h.db, { plan: 'free' });
    const res = await request(h.app)
      .post(`${base(link)}/upload`)
      .set(auth(link.token));
    expect(res.status).toBe(403);
    expect(bodyOf<ApiErrorBody>(res).message).toMatch(/premium plan only/);
  });

  it('counts chunks and users before deduplication, then commits the deduplicated union', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const id = await open(link);
    expect((await chunk(link, id, userIds(3)).expect(200)).body).toEqual({ data: { chunks: 1, users: 3 } });
    expect((await chunk(link, id, userIds(5)).expect(200)).body).toEqual({ data: { chunks: 2, users: 8 } });
    expect((await commit(link, id).expect(200)).body).toEqual({ data: { user_count: 5 } });
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(5));
  });

  it('accepts parallel chunks and loses none', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const id = await open(link);
    const parts = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => userIds(5_000, 100000000000000000n + BigInt(i * 5_000)));
    const results = await Promise.all(parts.map((p) => chunk(link, id, p)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(Math.max(...results.map((r) => bodyOf<ChunkAcceptedBody>(r).data.chunks))).toBe(8);
    expect(bodyOf<UserCountBody>(await commit(link, id).expect(200)).data.user_count).toBe(40_000);
  });

  it('refuses a chunk over 100,000 IDs or with a bad ID as a validation error', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const id = await open(link);
    const big = await chunk(link, id, userIds(100_001));
    expect(big.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(big).message).toBe('Validation error');
    expect((await chunk(link, id, ['12'])).status).toBe(400);
    expect((await chunk(link, id, userIds(100_000))).status).toBe(200);
  });

  it('keeps staging and the session open when the commit exceeds the stored limit', async () => {
    // The premium limit (30M) is too large for a unit-speed test; the limit is a parameter of the
    // replace, so the same commit path is driven with a limit of 5.
    const link = await seedLink(h.db, { plan: 'premium' });
    const id = await open(link);
    await chunk(link, id, userIds(10)).expect(200);
    const outcome = await replaceList(h.db.pool, {
      linkId: link.linkId,
      source: { kind: 'upload', uploadId: id },
      storedLimit: 5,
    });
    expect(outcome).toEqual({ kind: 'over-limit', next: 10 });
    expect(await stagedRows()).toBe(10);
    expect(await listOf(h.db, link.linkId)).toEqual([]);
    expect(bodyOf<UserCountBody>(await commit(link, id).expect(200)).data.user_count).toBe(10);
  });

  it('holds a commit that shrinks the list, keeps staging, and accepts the retry with the header', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    json(request(h.app).put(base(link)).set(auth(link.token)), userIds(100));
    await json(request(h.app).put(base(link)).set(auth(link.token)), userIds(100)).expect(200);
    const id = await open(link);
    await chunk(link, id, userIds(50)).expect(200);
    const held = await commit(link, id).expect(409);
    expect(bodyOf<ShrinkBody>(held).errors).toMatchObject({ code: 'shrink', previous: 100, next: 50, removals: 50 });
    expect(await stagedRows()).toBe(50);
    await commit(link, id).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id).expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(50));
  });

  it('empties the list on a zero-chunk commit, subject to the shrink rule', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await json(request(h.app).put(base(link)).set(auth(link.token)), userIds(3)).expect(200);
    const id = await open(link);
    const held = await commit(link, id).expect(409);
    await commit(link, id).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id).expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual([]);
    const empty = await seedLink(h.db, { plan: 'premium' });
    const id2 = await open(empty);
    expect((await commit(empty, id2).expect(200)).body).toEqual({ data: { user_count: 0 } });
  });

  it('cancels a session, discarding staging and leaving the live list untouched', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await json(request(h.app).put(base(link)).set(auth(link.token)), userIds(2)).expect(200);
    const id = await open(link);
    await chunk(link, id, userIds(7)).expect(200);
    expect((await cancel(link, id).expect(200)).body).toEqual({ data: { cancelled: true } });
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(2));
    await collectUploadGarbage(h.db.pool);
    expect(await stagedRows()).toBe(0);
  });

  it('answers 404 Upload session not found for unknown, committed, cancelled and expired sessions', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const expect404 = async (r: request.Test) => {
      const res = await r;
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, message: 'Upload session not found' });
    };
    const unknown = '3f0c1a9e-1111-4222-8333-444455556666';
    await expect404(chunk(link, unknown, userIds(1)));
    await expect404(commit(link, unknown));
    await expect404(cancel(link, unknown));

    const committed = await open(link);
    await commit(link, committed).expect(200);
    await expect404(chunk(link, committed, userIds(1)));
    await expect404(commit(link, committed));
    await expect404(cancel(link, committed));

    const cancelled = await open(link);
    await cancel(link, cancelled).expect(200);
    await expect404(commit(link, cancelled));

    const expired = await open(link);
    await chunk(link, expired, userIds(4)).expect(200);
    await h.db.pool.query("UPDATE upload_session SET expires_at = now() - interval '1 second' WHERE id = $1", [
      expired,
    ]);
    await expect404(chunk(link, expired, userIds(1)));
    await expect404(commit(link, expired));
    await collectUploadGarbage(h.db.pool);
    expect(await stagedRows()).toBe(0);
    expect(
      Number((await h.db.pool.query<{ count: string }>('SELECT count(*) FROM upload_session')).rows[0]!.count),
    ).toBe(0);
  });

  it('does not let another link use a session', async () => {
    const a = await seedLink(h.db, { plan: 'premium' });
    const b = await seedLink(h.db, { plan: 'premium', guildId: a.guildId });
    const id = await open(a);
    expect((await chunk(b, id, userIds(1))).status).toBe(404);
  });

  it('orders an add during a commit before or after it, never lost in between', async () => {
    const link = await seedLink(h.db, { plan: 'premium', trusted: true });
    const id = await open(link);
    await chunk(link, id, userIds(100_000)).expect(200);
    const extra = '900000000000000000';
    const [committed, added] = await Promise.all([
      commit(link, id),
      request(h.app)
        .post(`${base(link)}/${extra}`)
        .set(auth(link.token)),
    ]);
    expect(committed.status).toBe(200);
    expect(added.status).toBe(200);
    const list = await listOf(h.db, link.linkId);
    const { rows } = await h.db.pool.query<{ user_count: number }>('SELECT user_count FROM role_link WHERE id = $1', [
      link.linkId,
    ]);
    expect(rows[0]!.user_count).toBe(list.length);
    expect([100_000, 100_001]).toContain(list.length);
  });
});
