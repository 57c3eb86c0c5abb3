import request from 'supertest';
import { startApiHarness, auth, type ApiHarness, uploadChunks } from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const put = (l: SeededLink, body: unknown) =>
  request(h.app).put(base(l)).set(auth(l.token)).set('Content-Type', 'application/json').send(JSON.stringify(body));
const tag = (l: SeededLink, v: number) => `"${l.linkId}.${v}"`;

describe('list version: ETag and If-Match', () => {
  it('tags every response that reads or writes the list with the version, bumped only by changes', async () => {
    const link = await seedLink(h.db);
    const [a, b] = userIds(2);
    expect((await request(h.app).get(base(link)).set(auth(link.token)).expect(200)).headers.etag).toBe(tag(link, 0));
    expect((await put(link, [a]).expect(200)).headers.etag).toBe(tag(link, 1));
    expect(
      (
        await request(h.app)
          .post(`${base(link)}/${b}`)
          .set(auth(link.token))
          .expect(200)
      ).headers.etag,
    ).toBe(tag(link, 2));
    // Adding a present user and removing an absent one change nothing, so the version stays.
    expect(
      (
        await request(h.app)
          .post(`${base(link)}/${b}`)
          .set(auth(link.token))
          .expect(200)
      ).headers.etag,
    ).toBe(tag(link, 2));
    expect(
      (
        await request(h.app)
          .delete(`${base(link)}/${userIds(3)[2]}`)
          .set(auth(link.token))
          .expect(200)
      ).headers.etag,
    ).toBe(tag(link, 2));
    expect(
      (
        await request(h.app)
          .delete(`${base(link)}/${a}`)
          .set(auth(link.token))
          .expect(200)
      ).headers.etag,
    ).toBe(tag(link, 3));
    expect(
      (
        await request(h.app)
          .get(`${base(link)}/${b}`)
          .set(auth(link.token))
          .expect(200)
      ).headers.etag,
    ).toBe(tag(link, 3));
    expect((await request(h.app).get(base(link)).set(auth(link.token)).expect(200)).headers.etag).toBe(tag(link, 3));
  });

  it('accepts a PUT whose If-Match names the current version and answers 412 once the list moved on', async () => {
    const link = await seedLink(h.db);
    const read = await request(h.app).get(base(link)).set(auth(link.token)).expect(200);
    const ok = await put(link, userIds(3)).set('If-Match', read.headers.etag!).expect(200);
    expect(ok.headers.etag).toBe(tag(link, 1));

    // Another writer got in between: the stale version is refused and nothing is written.
    await request(h.app)
      .post(`${base(link)}/${userIds(4)[3]}`)
      .set(auth(link.token))
      .expect(200);
    const stale = await put(link, userIds(2)).set('If-Match', ok.headers.etag!);
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      statusCode: 412,
      message: `The list changed since the version in If-Match: it is now ${tag(link, 2)}. Read it again (GET /users) and resend.`,
    });
    expect(stale.headers.etag).toBe(tag(link, 2));
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(4));

    // A list of tags matches when any does; `*` always; weak, malformed and other links' tags never.
    await put(link, userIds(4))
      .set('If-Match', `"${link.linkId}.1", ${tag(link, 2)}`)
      .expect(200);
    await put(link, userIds(4)).set('If-Match', '*').expect(200);
    for (const bad of [`W/${tag(link, 4)}`, `"${Number(link.linkId) + 1}.4"`, 'nonsense', `${link.linkId}.4`]) {
      expect((await put(link, userIds(4)).set('If-Match', bad)).status).toBe(412);
    }
  });

  it('checks If-Match on commit under the lock, and keeps the session for a retry after a 412', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const v0 = (await request(h.app).get(base(link)).set(auth(link.token)).expect(200)).headers.etag!;
    const id = await uploadChunks(h.app, link, [userIds(5)]);
    await request(h.app)
      .post(`${base(link)}/${userIds(1, 300000000000000000n)[0]}`)
      .set(auth(link.token))
      .expect(200);

    const refused = await request(h.app)
      .post(`${base(link)}/upload/${id}/commit`)
      .set(auth(link.token))
      .set('If-Match', v0);
    expect(refused.status).toBe(412);
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(1, 300000000000000000n));
    const committed = await request(h.app)
      .post(`${base(link)}/upload/${id}/commit`)
      .set(auth(link.token))
      .set('If-Match', refused.headers.etag!)
      .expect(200);
    expect(committed.headers.etag).toBe(tag(link, 2));
  });

  it('lets exactly one of two writers holding the same version through', async () => {
    const link = await seedLink(h.db);
    const v = (await put(link, userIds(3)).expect(200)).headers.etag!;
    const answers = await Promise.all([
      put(link, userIds(4)).set('If-Match', v),
      put(link, userIds(5)).set('If-Match', v),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412]);
  });
});
