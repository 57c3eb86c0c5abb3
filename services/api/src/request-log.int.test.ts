import request from 'supertest';
import { memoryLogger } from '@rolelink/runtime';
import { startApiHarness, auth, type ApiHarness } from '../../../test/support/api';
import { seedLink } from '../../../test/support/fixtures';
import { createApi } from './app';

let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness()));
afterAll(() => h.close());
beforeEach(() => h.reset());

/** The API as main.ts serves it (the link pipeline, then Express), logging into memory. */
function loggedApp(level = 'info') {
  const { logger, lines } = memoryLogger('api', level);
  return { app: createApi({ pool: h.db.pool, sync: h.sync, logger }).listener, lines: lines };
}

describe('User Management API request log', () => {
  it('writes the route template, status and the authenticated link id, never the token', async () => {
    const link = await seedLink(h.db);
    const { app, lines } = loggedApp();
    await request(app)
      .put(`/api/role-link/${link.guildId}/${link.roleId}/users?rl_token=${link.token}`)
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(['800000000000000001']))
      .expect(200);
    expect(lines.filter((l) => l.message === 'http request')).toEqual([
      expect.objectContaining({
        level: 'info',
        method: 'PUT',
        route: '/api/role-link/:guildId/:roleId/users',
        status: 200,
        linkId: link.linkId,
        requestId: expect.any(String),
      }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of [link.token, 'rl_token', link.guildId, link.roleId]) expect(text).not.toContain(secret);
  });

  it('leaves the link id out of a request its token did not authenticate', async () => {
    const a = await seedLink(h.db);
    const b = await seedLink(h.db, { guildId: a.guildId });
    const { app, lines } = loggedApp();
    await request(app).get(`/api/role-link/${b.guildId}/${b.roleId}/users`).set(auth(a.token)).expect(403);
    await request(app).get(`/api/role-link/${b.guildId}/${b.roleId}/users`).expect(401);
    const logged = lines.filter((l) => l.message === 'http request');
    expect(logged.map((l) => [l.level, l.status, l.route])).toEqual([
      // Refused by the auth middleware before a route dispatched: the mount's template.
      ['info', 403, '/api/role-link/:guildId/:roleId/*'],
      ['info', 401, '/api/role-link/:guildId/:roleId/*'],
    ]);
    expect(logged.every((l) => !('linkId' in l))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(a.token);
  });
});
