import request from 'supertest';
import { generateToken } from '@rolelink/domain';
import {
  startApiHarness,
  auth,
  type ApiHarness,
  bodyOf,
  type ApiErrorBody,
  type UsersListBody,
} from '../../../test/support/api';
import { seedGuild, seedLink, snowflake } from '../../../test/support/fixtures';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

const usersPath = (g: string, r: string) => `/api/role-link/${g}/${r}/users`;

describe('User Management API authentication (spec 5 and 7)', () => {
  it('answers 401 when the Authorization header is missing', async () => {
    const link = await seedLink(h.db);
    const res = await request(h.app).get(usersPath(link.guildId, link.roleId));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: 'Authorization header required' });
  });

  it('answers 401 with the scheme hint for a Bearer token', async () => {
    const link = await seedLink(h.db);
    const res = await request(h.app)
      .get(usersPath(link.guildId, link.roleId))
      .set('Authorization', `Bearer ${link.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: 'Invalid authorization scheme. Use: Token <token>' });
  });

  it('answers 403 for an unknown, malformed or revoked token', async () => {
    const link = await seedLink(h.db);
    for (const token of [generateToken(), 'rl_garbage', 'nonsense']) {
      const res = await request(h.app).get(usersPath(link.guildId, link.roleId)).set(auth(token));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ statusCode: 403, message: 'Invalid or revoked token' });
    }
    await h.db.pool.query('DELETE FROM role_link WHERE id = $1', [link.linkId]);
    const revoked = await request(h.app).get(usersPath(link.guildId, link.roleId)).set(auth(link.token));
    expect(revoked.status).toBe(403);
  });

  it('refuses the token of another link in the same guild with 403', async () => {
    const a = await seedLink(h.db);
    const b = await seedLink(h.db, { guildId: a.guildId });
    const res = await request(h.app).get(usersPath(b.guildId, b.roleId)).set(auth(a.token));
    expect(res.status).toBe(403);
    expect(bodyOf<ApiErrorBody>(res).message).toBe('Invalid or revoked token');
  });

  it('answers 404 Role link not found to a valid token aimed at a guild and role without a link', async () => {
    const a = await seedLink(h.db);
    const res = await request(h.app).get(usersPath(a.guildId, snowflake())).set(auth(a.token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Role link not found' });
  });

  it('answers 403 for a disabled link', async () => {
    const link = await seedLink(h.db, { enabled: false });
    const res = await request(h.app).get(usersPath(link.guildId, link.roleId)).set(auth(link.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, message: 'This role link is disabled' });
  });

  it('pauses the newest links beyond the slot allowance and resumes them on upgrade, keeping their lists', async () => {
    const guildId = await seedGuild(h.db, { plan: 'premium' });
    const links = [];
    for (let i = 0; i < 4; i++) links.push(await seedLink(h.db, { guildId }));
    const newest = links[3]!;
    await request(h.app)
      .post(`${usersPath(guildId, newest.roleId)}/100000000000000001`)
      .set(auth(newest.token))
      .expect(200);

    await seedGuild(h.db, { id: guildId, plan: 'free' }); // downgrade: 2 slots
    for (const [i, link] of links.entries()) {
      const res = await request(h.app).get(usersPath(guildId, link.roleId)).set(auth(link.token));
      if (i < 2) expect(res.status).toBe(200);
      else
        expect(res.body).toEqual({
          statusCode: 403,
          message: 'This role link is paused — integration slots quota exceeded',
        });
    }

    await seedGuild(h.db, { id: guildId, plan: 'free', paidSlots: 2 }); // two paid slots: all four fit
    const resumed = await request(h.app).get(usersPath(guildId, newest.roleId)).set(auth(newest.token)).expect(200);
    expect(bodyOf<UsersListBody>(resumed).data).toEqual(['100000000000000001']);
  });

  it('resumes a paused link when an older link is deleted', async () => {
    const guildId = await seedGuild(h.db, { plan: 'free' });
    const [first, , third] = [
      await seedLink(h.db, { guildId }),
      await seedLink(h.db, { guildId }),
      await seedLink(h.db, { guildId }),
    ];
    await request(h.app).get(usersPath(guildId, third.roleId)).set(auth(third.token)).expect(403);
    await h.db.pool.query('DELETE FROM role_link WHERE id = $1', [first.linkId]);
    await request(h.app).get(usersPath(guildId, third.roleId)).set(auth(third.token)).expect(200);
  });

  it('validates path parameters with 400 Validation error', async () => {
    const link = await seedLink(h.db);
    const bad = await request(h.app).get(`/api/role-link/abc/${link.roleId}/users`).set(auth(link.token));
    expect(bad.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(bad).message).toBe('Validation error');
    const badUser = await request(h.app)
      .get(`${usersPath(link.guildId, link.roleId)}/123`)
      .set(auth(link.token));
    expect(badUser.status).toBe(400);
    expect(bodyOf<ApiErrorBody>(badUser).message).toBe('Validation error');
  });

  it('checks the header before the path, and the token before the existence of a link', async () => {
    const noHeader = await request(h.app).get('/api/role-link/abc/def/users');
    expect(noHeader.status).toBe(401);
    const unknownToken = await request(h.app).get(usersPath(snowflake(), snowflake())).set(auth(generateToken()));
    expect(unknownToken.status).toBe(403);
  });

  it('answers unknown routes with a JSON 404 in the error shape', async () => {
    const res = await request(h.app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Route not found: GET /nope' });
  });
});
