// `list.resend_requested` reaches a plugin built on the SDK, and the plugin answers it
// as a plugin author would: its typed handler resends the list through the SDK's RoleLinkClient, within
// the window the owner's Apply removals opened, and the removal goes through. The plugin is the SDK's own
// pluginMiddleware on HTTPS (the broker's harness); the API is services/api on a local port; the owner's
// actions are the admin commands the dashboard and the CLI run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyRemovals, requestListResend, showLink } from '@rolelink/admin';
import { listEventLog } from '@rolelink/db/events';
import {
  configForm,
  fields,
  MemoryTokenStore,
  pluginMiddleware,
  RoleLinkClient,
  section,
  type PluginEvent,
} from '@rolelink/plugin-sdk';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { testAdminDeps } from '../../packages/admin/test/support/deps';
import { createApi } from '../../services/api/src/app';
import { DEFAULT_PLUGIN_TIMEOUTS } from '../../services/plugin-broker/src/context';
import { sweepEvents } from '../../services/plugin-broker/src/events/event-sweep';
import { startHarness, type Harness } from '../../services/plugin-broker/test/support/harness';
import { userIds } from '../support/fixtures';
import { REDIS_URL } from '../support/redis';
import { until as pollUntil } from '../support/until';

const form = configForm({ name: 'SDK plugin', sections: [section('S', [fields.text('name', 'Name')])] });
const store = new MemoryTokenStore();
/** The list the plugin would send now, per guild (what its own data says). */
const lists = new Map<string, string[]>();
/** Every list.resend_requested the plugin's handler ran for, with what its resend answered. */
const handled: { event: PluginEvent<'list.resend_requested'>; userCount: number | undefined; held: boolean }[] = [];
let apiUrl = '';

const client = (link: { guildId: string; roleId: string; token: string }) =>
  new RoleLinkClient({ baseUrl: apiUrl, ...link, retry: { retries: 0 } });

const app = pluginMiddleware({
  store,
  getConfig: () => form.response({ name: '' }),
  events: {
    // What docs/plugin-quickstart.md "Events" shows: resend the list when the owner asks for it.
    'list.resend_requested': async (event, link) => {
      const outcome = await client(link).replaceUsers(lists.get(link.guildId) ?? []);
      handled.push({ event, userCount: outcome.held ? undefined : outcome.userCount, held: outcome.held !== null });
    },
  },
});

let h: Harness;
let api: http.Server;
let sync: SyncNotifier;
let redis: ReturnType<typeof producerConnection>;
beforeAll(async () => {
  h = await startHarness({
    pluginApp: (req, res) => app(req, res),
    events: { baseMs: 20, maxMs: 80, windowMs: 60_000, timeoutMs: 20_000 },
    timeouts: DEFAULT_PLUGIN_TIMEOUTS,
    deadlines: { register: 15_000 },
  });
  redis = producerConnection(REDIS_URL);
  sync = new SyncNotifier(redis, h.prefix, silentLogger());
  const served = createApi({ pool: h.db.pool, sync, logger: silentLogger() });
  api = http.createServer(served.serverOptions, served.listener);
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  api.closeAllConnections();
  await new Promise((resolve) => api.close(resolve));
  await sync.close();
  redis.disconnect();
  await h.close();
});

/** Polls until `done`, for at most 60 s unless told otherwise. */
const until = <T>(read: () => Promise<T> | T, done: (v: T) => boolean, what: string, timeoutMs = 60_000) =>
  pollUntil(read, done, what, timeoutMs);

describe('list.resend_requested to an SDK plugin', () => {
  it('is asked for on /register, delivered, verified, and answered by a resent list that the applied removal lets through', async () => {
    const link = await h.seedLink();
    await h.client.register(link.linkId);
    const registered = store.get(link.guildId, link.roleId)!;
    const at = { guildId: link.guildId, roleId: link.roleId };
    const deps = testAdminDeps(h.db);
    // The SDK asked for the kind it has a handler for.
    expect(
      (
        await h.db.pool.query<{ kinds: string[] }>('SELECT kinds FROM plugin_event_link WHERE link_id = $1', [
          link.linkId,
        ])
      ).rows[0]!.kinds,
    ).toEqual(['list.resend_requested']);

    // The plugin's list shrinks from 50 to 5: held, and the owner applies it; the plugin does not resend yet.
    const ids = userIds(50);
    expect(await client(registered).replaceUsers(ids)).toMatchObject({ held: null, userCount: 50 });
    const held = await client(registered).replaceUsers(ids.slice(0, 5));
    expect(held.held).not.toBeNull();
    lists.set(link.guildId, ids.slice(0, 5));
    const applied = await applyRemovals(deps, at);
    expect((await showLink(deps, at)).removal).toMatchObject({ state: 'awaiting_list', resend: { listening: true } });

    const asked = await requestListResend(deps, at);
    expect(asked.queued).toBe(true);
    await sweepEvents(h.ctx, h.broker.jobs); // the scheduled sweep's run
    await until(
      () => handled.filter((x) => x.event.guild_id === link.guildId),
      (x) => x.length === 1,
      'the plugin to handle list.resend_requested',
    );
    const [seen] = handled;
    expect(seen!.event).toMatchObject({
      id: asked.event_id,
      type: 'list.resend_requested',
      guild_id: link.guildId,
      role_id: link.roleId,
      data: { change_id: applied.change_id, window_ends_at: applied.window_ends_at },
    });
    // The resent list went through without a new hold: the owner's confirmation covered it.
    expect(seen).toMatchObject({ userCount: 5, held: false });
    // The handler ran before the plugin answered; the broker records the answer right after.
    const [entry] = await until(
      () => listEventLog(h.db.pool, link.linkId),
      (l) => l[0]?.state !== 'pending',
      'the broker to record the answer',
    );
    expect(entry).toMatchObject({ kind: 'list.resend_requested', state: 'delivered' });
    expect(entry!.attempts.map((a) => a.httpStatus)).toEqual([204]); // verified at the first attempt

    // The card's note about waiting for the list gives way to the removals under way.
    const shown = await showLink(deps, at);
    expect(shown.held_change).toBeNull();
    expect(shown.removal).toMatchObject({
      change_id: applied.change_id,
      state: 'removing',
      list_resent_at: expect.any(String),
    });
  }, 120_000);
});
