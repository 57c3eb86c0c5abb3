import { startHarness, type Harness } from './support/harness';
import { json } from './support/test-plugin';
import { pollHealth } from '../src/health/health-poll';

// The health poll's outcome hook: a plugin's transitions notify each of its links'
// guilds, de-duplicated per link, through the broker's real queue, checks and database.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ timeouts: { health: 1000 } });
});
afterAll(() => h.close());

async function pollOnce(): Promise<void> {
  const done = h.completed('health-check');
  await pollHealth(h.ctx, h.broker.jobs);
  await done;
}
const notified = async (guildId: string) =>
  (
    await h.db.pool.query<{ kind: string; detail: unknown }>(
      'SELECT kind, detail FROM notification WHERE guild_id = $1 ORDER BY id',
      [guildId],
    )
  ).rows;

it('notifies a link once while its plugin stays down, and once when it is healthy again', async () => {
  const link = await h.seedLink(`${h.plugin.url}/notify`);
  h.plugin.on('GET /notify/health', (_req, res) => json(res, 404, {}));
  await pollOnce();
  h.plugin.on('GET /notify/health', (_req, res) => json(res, 200, { status: 'unhealthy' }));
  await pollOnce();
  expect(await notified(link.guildId)).toEqual([
    { kind: 'plugin_unhealthy', detail: { plugin_url: link.pluginUrl, status: 'unreachable' } },
  ]);

  h.plugin.on('GET /notify/health', (_req, res) => json(res, 200, { status: 'healthy' }));
  await pollOnce();
  await pollOnce();
  expect((await notified(link.guildId)).map((n) => n.kind)).toEqual(['plugin_unhealthy', 'plugin_recovered']);
});
