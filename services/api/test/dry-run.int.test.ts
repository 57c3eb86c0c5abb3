import request from 'supertest';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type DryRunBody,
  type ShrinkBody,
  uploadChunks,
} from '../../../test/support/api';
import { listOf, seedLink, userIds, type SeededLink } from '../../../test/support/fixtures';
import { toStored } from '@rolelink/db/client';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const base = (l: SeededLink) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const put = (l: SeededLink, body: unknown, query = '') =>
  request(h.app)
    .put(`${base(l)}${query}`)
    .set(auth(l.token))
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body));

/** Everything a list write touches: the list, the link row's counters and marks, held changes, uploads and the sync queue. */
async function footprint(linkId: string) {
  const link = await h.db.pool.query<Record<string, unknown>>(
    `SELECT user_count, list_version::text, sync_wanted_seq::text, first_list_at, updated_at FROM role_link WHERE id = $1`,
    [linkId],
  );
  const held = await h.db.pool.query<Record<string, unknown>>(
    'SELECT change_id, used_at FROM held_change WHERE link_id = $1 ORDER BY change_id',
    [linkId],
  );
  const uploads = await h.db.pool.query<Record<string, unknown>>(
    'SELECT id, closed_at, users FROM upload_session WHERE link_id = $1 ORDER BY id',
    [linkId],
  );
  const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
  return {
    list: await listOf(h.db, linkId),
    link: link.rows[0],
    held: held.rows,
    uploads: uploads.rows,
    jobs: jobs.length,
  };
}

describe('?dry_run=true on PUT /users', () => {
  it('answers the adds, removals and synced-limit overflow of a replace and writes nothing', async () => {
    const link = await seedLink(h.db, { plan: 'free' });
    await put(link, userIds(100)).expect(200);
    await h.syncQueue.obliterate({ force: true });
    const before = await footprint(link.linkId);

    // Keeps 90 of the 100, adds 30 more: 120 stored, 20 beyond the free synced limit of 100.
    const next = [...userIds(90), ...userIds(30, 300000000000000000n)];
    const res = await put(link, next, '?dry_run=true').expect(200);
    expect(res.body).toEqual({
      data: {
        dry_run: true,
        status: 200,
        outcome: 'replaced',
        message: 'The list would hold 120 users.',
        user_count: 100,
        next_user_count: 120,
        adds: 30,
        removals: 10,
        synced_limit: 100,
        held_by_synced_limit: 20,
        shrink: {
          previous: 100,
          removals: 10,
          large_removal: false,
          trusted: false,
          confirmation: 'none',
          would_hold: false,
        },
      },
    });
    expect(res.headers.etag).toBe(`"${link.linkId}.1"`);
    expect(await footprint(link.linkId)).toEqual(before);
  });

  it('says a large removal would be held, without recording a held change or spending a confirmation', async () => {
    const link = await seedLink(h.db);
    await put(link, userIds(40)).expect(200);
    const held = await put(link, userIds(10));
    expect(held.status).toBe(409);
    await h.syncQueue.obliterate({ force: true });
    const before = await footprint(link.linkId);

    const dry = await put(link, userIds(10), '?dry_run=true').expect(200);
    expect(bodyOf<DryRunBody>(dry).data).toMatchObject({
      status: 409,
      outcome: 'held',
      adds: 0,
      removals: 30,
      shrink: { large_removal: true, confirmation: 'none', would_hold: true },
    });
    expect(bodyOf<DryRunBody>(dry).data.message).toMatch(/would remove 30 of 40 users/);
    const confirmed = await put(link, userIds(10), '?dry_run=true')
      .set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id)
      .expect(200);
    expect(bodyOf<DryRunBody>(confirmed).data).toMatchObject({
      status: 200,
      outcome: 'replaced',
      shrink: { confirmation: 'header', would_hold: false },
    });
    const stale = await put(link, userIds(10), '?dry_run=true')
      .set('X-RoleLink-Confirm', '00000000-0000-0000-0000-000000000000')
      .expect(200);
    expect(bodyOf<DryRunBody>(stale).data).toMatchObject({
      status: 409,
      shrink: { confirmation: 'invalid', would_hold: true },
    });
    expect(await footprint(link.linkId)).toEqual(before);

    // The confirmation the dry run reported as accepted is still there for the real write.
    await put(link, userIds(10)).set('X-RoleLink-Confirm', bodyOf<ShrinkBody>(held).errors.change_id).expect(200);
    expect(await listOf(h.db, link.linkId)).toEqual(userIds(10));
  });

  it('judges a hand-over first list against the role holders, as the write does', async () => {
    const link = await seedLink(h.db, { memberMode: 'handover', firstList: false });
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) SELECT $1, ${toStored('x')}, 'applied' FROM unnest($2::numeric[]) x`,
      [link.linkId, userIds(20)],
    );
    const before = await footprint(link.linkId);
    const res = await put(link, userIds(5), '?dry_run=true').expect(200);
    expect(bodyOf<DryRunBody>(res).data).toMatchObject({
      status: 409,
      user_count: 0,
      next_user_count: 5,
      adds: 5,
      removals: 0,
      shrink: { previous: 20, removals: 15, would_hold: true },
    });
    expect(bodyOf<DryRunBody>(res).data.message).toMatch(
      /^This first list would remove the role from 15 of its 20 current holders .*count as the previous list/,
    );
    expect(await footprint(link.linkId)).toEqual(before);
  });

  it('validates the flag and still validates the body', async () => {
    const link = await seedLink(h.db);
    const flag = await put(link, userIds(1), '?dry_run=yes');
    expect(flag.status).toBe(400);
    expect(flag.body).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: ['query.dry_run: must be true or false'],
    });
    const body = await put(link, ['12'], '?dry_run=true');
    expect(body.status).toBe(400);
    expect(await listOf(h.db, link.linkId)).toEqual([]);
    // dry_run=false is an ordinary write.
    expect((await put(link, userIds(2), '?dry_run=false').expect(200)).body).toEqual({ data: { user_count: 2 } });
  });
});

describe('?dry_run=true on commit', () => {
  it('previews the staged list, keeps the session open and writes nothing', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await put(link, userIds(10)).expect(200);
    const id = await uploadChunks(h.app, link, [[...userIds(8), ...userIds(8)]]);
    await h.syncQueue.obliterate({ force: true });
    const before = await footprint(link.linkId);

    const dry = await request(h.app)
      .post(`${base(link)}/upload/${id}/commit?dry_run=true`)
      .set(auth(link.token))
      .expect(200);
    expect(bodyOf<DryRunBody>(dry).data).toMatchObject({
      status: 200,
      outcome: 'replaced',
      user_count: 10,
      next_user_count: 8,
      adds: 0,
      removals: 2,
      held_by_synced_limit: 0,
    });
    expect(await footprint(link.linkId)).toEqual(before);

    // The session is still open: the real commit works and matches the preview.
    const real = await request(h.app)
      .post(`${base(link)}/upload/${id}/commit`)
      .set(auth(link.token))
      .expect(200);
    expect(real.body).toEqual({ data: { user_count: 8 } });
  });

  it('answers 404 for a session that is not open, as the commit would', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const res = await request(h.app)
      .post(`${base(link)}/upload/00000000-0000-4000-8000-000000000000/commit?dry_run=true`)
      .set(auth(link.token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Upload session not found' });
  });
});
