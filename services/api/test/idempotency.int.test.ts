import request from 'supertest';
import { collectIdempotencyKeys } from '@rolelink/db/list';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type ShrinkBody,
  uploadChunks,
} from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const put = (l: SeededLink, body: unknown, key?: string) => {
  const r = request(h.app).put(base(l)).set(auth(l.token)).set('Content-Type', 'application/json');
  return (key ? r.set('Idempotency-Key', key) : r).send(JSON.stringify(body));
};
const version = async (l: SeededLink) =>
  (await h.db.pool.query<{ v: string }>('SELECT list_version::text AS v FROM role_link WHERE id = $1', [l.linkId]))
    .rows[0]!.v;
const jobs = async () => (await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized'])).length;

describe('Idempotency-Key', () => {
  it('replays the first answer of a PUT and does not write again', async () => {
    const link = await seedLink(h.db);
    const first = await put(link, userIds(3), 'put-1').expect(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Someone else changes the list in between; the retry must not undo that.
    await request(h.app)
      .post(`${base(link)}/${userIds(4)[3]}`)
      .set(auth(link.token))
      .expect(200);
    await h.syncQueue.obliterate({ force: true });
    const v = await version(link);

    const retry = await put(link, userIds(3), 'put-1').expect(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.etag).toBe(first.headers.etag);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(4));
    expect(await version(link)).toBe(v);
    expect(await jobs()).toBe(0);
  });

  it('answers 422 when the key comes back with a different request, and writes nothing', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(3), 'k').expect(200);
    const other = await put(link, userIds(2), 'k');
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      statusCode: 422,
      message: expect.stringMatching(/^This Idempotency-Key was already used for a different request/),
    });
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(3));
    // Another route with the same key is another request too.
    expect(
      (
        await request(h.app)
          .post(`${base(link)}/${userIds(1)[0]}`)
          .set(auth(link.token))
          .set('Idempotency-Key', 'k')
      ).status,
    ).toBe(422);
  });

  it('replays single adds and removals: the retry of an add that added says added, not "already there"', async () => {
    const link = await seedLink(h.db);
    const [a] = userIds(1);
    const add = () =>
      request(h.app)
        .post(`${base(link)}/${a}`)
        .set(auth(link.token))
        .set('Idempotency-Key', 'add-a');
    expect((await add().expect(200)).body).toEqual({ data: { added: true } });
    expect((await add().expect(200)).body).toEqual({ data: { added: true } });
    const remove = () =>
      request(h.app)
        .delete(`${base(link)}/${a}`)
        .set(auth(link.token))
        .set('Idempotency-Key', 'rm-a');
    expect((await remove().expect(200)).body).toEqual({ data: { removed: true } });
    // A plain add in between; the replayed removal must not remove it again.
    await request(h.app)
      .post(`${base(link)}/${a}`)
      .set(auth(link.token))
      .expect(200);
    const again = await remove().expect(200);
    expect(again.body).toEqual({ data: { removed: true } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await listOf(h.db, link.linkId)).toEqual([a]);
  });

  it('replays a commit instead of answering 404 for the closed session', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const id = await uploadChunks(h.app, link, [userIds(5)]);
    const commit = () =>
      request(h.app)
        .post(`${base(link)}/upload/${id}/commit`)
        .set(auth(link.token))
        .set('Idempotency-Key', 'c-1');
    expect((await commit().expect(200)).body).toEqual({ data: { user_count: 5 } });
    expect((await commit().expect(200)).body).toEqual({ data: { user_count: 5 } });
    // Without the key the retry is a new request: the session is gone.
    expect(
      (
        await request(h.app)
          .post(`${base(link)}/upload/${id}/commit`)
          .set(auth(link.token))
      ).status,
    ).toBe(404);
  });

  it('replays an error answer too (a shrink hold keeps its change_id); the confirmed resend needs a new key', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(40)).expect(200);
    const held = await put(link, userIds(10), 'shrink');
    expect(held.status).toBe(409);
    const replay = await put(link, userIds(10), 'shrink');
    expect(replay.status).toBe(409);
    expect(bodyOf<ShrinkBody>(replay).errors.change_id).toBe(bodyOf<ShrinkBody>(held).errors.change_id);
    expect(
      (
        await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM held_change WHERE link_id = $1', [
          link.linkId,
        ])
      ).rows[0]!.n,
    ).toBe(1);
    const confirmed = put(link, userIds(10), 'shrink-confirmed').set(
      'X-RoleLink-Confirm',
      bodyOf<ShrinkBody>(held).errors.change_id,
    );
    await confirmed.expect(200);
  });

  it('keeps keys per token: another link may use the same key', async () => {
    const [a, b] = [await seedLink(h.db), await seedLink(h.db)];
    await put(a, userIds(2), 'shared').expect(200);
    await put(b, userIds(3), 'shared').expect(200);
    expect(await listOf(h.db, b.linkId)).toEqual(userIds(3));
  });

  it('runs concurrent requests with one key once', async () => {
    const link = await seedLink(h.db);
    const answers = await Promise.all(Array.from({ length: 5 }, () => put(link, userIds(3), 'race')));
    for (const a of answers) expect([200, 409]).toContain(a.status);
    expect(answers.filter((a) => a.status === 200 && !a.headers['idempotent-replayed']).length).toBe(1);
    expect(await version(link)).toBe('1');
  });

  it('refuses a malformed key, ignores the key on a dry run, and lets the sweeper drop keys after 24 h', async () => {
    const link = await seedLink(h.db);
    const bad = await put(link, userIds(1), 'x'.repeat(256));
    expect(bad.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(bad).details).toEqual([
      'headers.idempotency-key: must be 1 to 255 visible ASCII characters',
    ]);
    await request(h.app)
      .put(`${base(link)}?dry_run=true`)
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', 'dry')
      .send(JSON.stringify(userIds(1)))
      .expect(200);
    expect(
      (await h.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM idempotency_key WHERE key = 'dry'"))
        .rows[0]!.n,
    ).toBe(0);

    await put(link, userIds(2), 'old').expect(200);
    await h.db.pool.query("UPDATE idempotency_key SET created_at = created_at - interval '25 hours' WHERE key = 'old'");
    // Expired: the key is a new request again (here a different one, which is no longer a reuse error).
    await put(link, userIds(3), 'old').expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(3));
    await h.db.pool.query("UPDATE idempotency_key SET created_at = created_at - interval '25 hours'");
    expect(await collectIdempotencyKeys(h.db.pool)).toBe(1);
  });
});
