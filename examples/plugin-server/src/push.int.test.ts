import { listOf, seedLink, userIds } from '../../../test/support/fixtures';
import { startListeningApi } from '../../../sdk/plugin-sdk/test/listening-api';
import { pushList } from './push';

let api: Awaited<ReturnType<typeof startListeningApi>>;
beforeAll(async () => (api = await startListeningApi()));
afterAll(() => api.close());
beforeEach(() => api.reset());

describe('the example plugin pushes its list through the SDK, against the real API', () => {
  it('keeps retrying while the link refuses its token, and pushes once it is usable', async () => {
    const link = await seedLink(api.db, { enabled: false });
    const push = pushList(api.url, link, userIds(7), { retryForMs: 10_000 });
    // The link becomes usable only after the first refusals (403 This role link is disabled).
    await new Promise((resolve) => setTimeout(resolve, 600));
    await api.db.pool.query('UPDATE role_link SET enabled = true WHERE id = $1', [link.linkId]);
    expect(await push).toEqual({
      held: null,
      userCount: 7,
      via: 'put',
      listVersion: expect.any(String),
      replayed: false,
    });
    expect(await listOf(api.db, link.linkId)).toEqual(userIds(7));
  });

  it("gives up after retryForMs with the service's error, and reports a large removal as held", async () => {
    const link = await seedLink(api.db, { enabled: false });
    await expect(pushList(api.url, link, userIds(3), { retryForMs: 300 })).rejects.toMatchObject({
      statusCode: 403,
      message: 'This role link is disabled',
    });
    await api.db.pool.query('UPDATE role_link SET enabled = true WHERE id = $1', [link.linkId]);
    await pushList(api.url, link, userIds(40));
    const held = await pushList(api.url, link, userIds(5));
    expect(held.held).toMatchObject({ previous: 40, next: 5, removals: 35 });
    expect(await listOf(api.db, link.linkId)).toHaveLength(40);
  });
});
