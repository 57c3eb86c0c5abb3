import request from 'supertest';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type UsersListBody,
  openUpload,
  uploadChunks,
} from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';
import { MIXED_WIDTH_IDS } from '../../../test/support/user-id-cases';

// Through the public API: ids of 17 to 20 digits up to 2^64 - 1 are stored and returned
// exactly and in numeric order across 2^63; an id with a leading zero is refused on every route, naming it.

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const send = (r: request.Test, body: unknown) => r.set('Content-Type', 'application/json').send(JSON.stringify(body));
const put = (l: SeededLink, body: unknown) => send(request(h.app).put(base(l)).set(auth(l.token)), body);
const list = async (l: SeededLink) =>
  bodyOf<UsersListBody>(await request(h.app).get(base(l)).set(auth(l.token)).expect(200));
const padded = (v: string) => `"${v}" has a leading zero; a snowflake never starts with 0`;
const ascending = [...MIXED_WIDTH_IDS];

describe('ids of 17 to 20 digits, across 2^63, through the public API', () => {
  it('PUT stores them all and GET returns them exactly, in numeric order, with the counts in meta', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const res = await put(link, [...ascending].reverse()).expect(200);
    expect(res.body).toEqual({ data: { user_count: ascending.length } });
    const body = await list(link);
    expect(body.data).toEqual(ascending);
    expect(body.meta).toMatchObject({ user_count: ascending.length, synced_limit: 30_000_000 });
    expect(await listOf(h.db, link.linkId)).toEqual(ascending);
  });

  it('POST, GET and DELETE of one user take 2^63 - 1, 2^63 and 2^64 - 1', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    for (const id of ['18446744073709551615', '9223372036854775808', '9223372036854775807', '10000000000000000001']) {
      expect(
        (
          await request(h.app)
            .post(`${base(link)}/${id}`)
            .set(auth(link.token))
            .expect(200)
        ).body,
      ).toEqual({ data: { added: true } });
    }
    expect(
      (
        await request(h.app)
          .get(`${base(link)}/9223372036854775808`)
          .set(auth(link.token))
          .expect(200)
      ).body,
    ).toEqual({ data: { exists: true } });
    expect(
      (
        await request(h.app)
          .get(`${base(link)}/9223372036854775809`)
          .set(auth(link.token))
          .expect(200)
      ).body,
    ).toEqual({ data: { exists: false } });
    expect((await list(link)).data).toEqual([
      '9223372036854775807',
      '9223372036854775808',
      '10000000000000000001',
      '18446744073709551615',
    ]);
    expect(
      (
        await request(h.app)
          .delete(`${base(link)}/9223372036854775808`)
          .set(auth(link.token))
          .expect(200)
      ).body,
    ).toEqual({ data: { removed: true } });
    expect((await list(link)).data).toEqual(['9223372036854775807', '10000000000000000001', '18446744073709551615']);
  });

  it('a chunked upload commits them in numeric order', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await uploadChunks(h.app, link, [ascending.slice(6), ascending.slice(0, 7)], { commit: true });
    expect((await list(link)).data).toEqual(ascending);
  });

  it('refuses 2^64 and 21 digits', async () => {
    const link = await seedLink(h.db);
    const res = await put(link, ['18446744073709551616']).expect(400);
    expect(bodyOf<ApiErrorBody>(res).details).toEqual([
      'body.0: "18446744073709551616" is above 18446744073709551615 (2^64 - 1)',
    ]);
    await request(h.app)
      .post(`${base(link)}/184467440737095516150`)
      .set(auth(link.token))
      .expect(400);
  });
});

describe('an id with a leading zero is refused, naming it (it was merged into the unpadded id)', () => {
  it('PUT: a zero-padded id answers 400 and writes nothing', async () => {
    const link = await seedLink(h.db);
    const before = userIds(3);
    await put(link, before).expect(200);
    const res = await put(link, [
      ...userIds(50, 300000000000000000n),
      '0100000000000009999',
      '100000000000009999',
      '00000000000000042',
    ]).expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: [`body.50: ${padded('0100000000000009999')}`],
    });
    expect(await listOf(h.db, link.linkId)).toEqual(before);
  });

  it('POST, GET and DELETE of one user, a dry run and a chunk', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await put(link, ['100000000000009999']).expect(200);
    for (const method of ['post', 'get', 'delete'] as const) {
      const res = await request(h.app)
        [method](`${base(link)}/0100000000000009999`)
        .set(auth(link.token));
      expect([method, res.status, res.body]).toEqual([
        method,
        400,
        { statusCode: 400, message: 'Validation error', details: [`params.userId: ${padded('0100000000000009999')}`] },
      ]);
    }
    const dry = await send(
      request(h.app)
        .put(`${base(link)}?dry_run=true`)
        .set(auth(link.token)),
      ['00000000000000042'],
    ).expect(400);
    expect(bodyOf<ApiErrorBody>(dry).details).toEqual([`body.0: ${padded('00000000000000042')}`]);
    const upload = await openUpload(h.app, link);
    const chunk = await send(
      request(h.app)
        .post(`${base(link)}/upload/${upload}/chunk`)
        .set(auth(link.token)),
      ['100000000000000001', '00000000000000042'],
    ).expect(400);
    expect(bodyOf<ApiErrorBody>(chunk).details).toEqual([`body.1: ${padded('00000000000000042')}`]);
    expect(await listOf(h.db, link.linkId)).toEqual(['100000000000009999']);
  });

  it('a guild or role id in the path', async () => {
    const link = await seedLink(h.db);
    const res = await request(h.app)
      .get(`/api/role-link/0${link.guildId}/${link.roleId}/users`)
      .set(auth(link.token))
      .expect(400);
    expect(bodyOf<ApiErrorBody>(res).details).toEqual([
      `params.guildId: "0${link.guildId}" has a leading zero; a snowflake never starts with 0`,
    ]);
  });
});
