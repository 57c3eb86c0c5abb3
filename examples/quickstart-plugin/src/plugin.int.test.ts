import request from 'supertest';
import { PLUGIN_EVENT_KINDS } from '@rolelink/contracts';
import { signEvent } from '@rolelink/plugin-sdk';
import { eventually } from '../../../test/dashboard/browser';
import { listOf, seedLink, userIds } from '../../../test/support/fixtures';
import { startListeningApi } from '../../../sdk/plugin-sdk/test/listening-api';
import { createQuickstartPlugin } from './plugin';
import { bodyOf } from '../../../test/support/body';

let api: Awaited<ReturnType<typeof startListeningApi>>;
beforeAll(async () => (api = await startListeningApi()));
afterAll(() => api.close());

describe('the quickstart plugin of docs/plugin-quickstart.md, against the real API', () => {
  it('pushes its default list after /register, and the saved count after POST /config', async () => {
    const link = await seedLink(api.db);
    const lines: string[] = [];
    const plugin = createQuickstartPlugin({ apiUrl: api.url, log: (l) => void lines.push(l) });
    const auth = { Authorization: `Token ${link.token}` };
    const body = { guild_id: link.guildId, role_id: link.roleId };
    const registered = await request(plugin).post('/register').set(auth).send(body).expect(200);
    // A handler per kind: the plugin asks for every kind the service sends (what `rolelink trigger` needs).
    expect(bodyOf<{ events: string[] }>(registered).events.slice().sort()).toEqual([...PLUGIN_EVENT_KINDS].sort());
    expect(
      await eventually(
        () => listOf(api.db, link.linkId),
        (l) => l.length === 25,
      ),
    ).toEqual(userIds(25));

    const form = await request(plugin).get('/config').set(auth).expect(200);
    expect(form.body).toMatchObject({
      version: 1,
      name: 'Quickstart plugin',
      sections: [{ fields: [{ key: 'member_count', default_value: 25 }] }],
    });
    await request(plugin)
      .post('/config')
      .set(auth)
      .send({ ...body, config: { member_count: 30 } })
      .expect(200, { ok: true, message: 'Saved: 30 members' });
    expect(
      await eventually(
        () => listOf(api.db, link.linkId),
        (l) => l.length === 30,
      ),
    ).toEqual(userIds(30));
    expect(
      bodyOf<{ values: Record<string, unknown> }>(await request(plugin).get('/config').set(auth).expect(200)).values,
    ).toEqual({ member_count: 30 });
    const refused = await request(plugin)
      .post('/config')
      .set(auth)
      .send({ ...body, config: { member_count: -1 } })
      .expect(400);
    expect(bodyOf<{ error: string }>(refused).error).toMatch(/member_count/);
    const event = JSON.stringify({
      id: 'evt_7',
      type: 'link.disabled',
      timestamp: new Date().toISOString(),
      ...body,
      seq: 3,
      data: {},
    });
    await request(plugin)
      .post('/events')
      .set({ ...auth, ...signEvent(link.token, 'evt_7', event), 'content-type': 'application/json' })
      .send(event)
      .expect((res) => expect(res.status).toBeLessThan(300));
    expect(lines).toEqual([
      `${link.guildId}/${link.roleId}: 25 members stored`,
      `${link.guildId}/${link.roleId}: 30 members stored`,
      `${link.guildId}/${link.roleId}: event link.disabled #3 {}`,
    ]);
  });
});
