// `link.deleted` reaches a plugin built on the SDK: the SDK forgets a link's token,
// and with it the event's signing secret, on DELETE /config, so the broker sends DELETE /config only
// after the link's `link.deleted` was delivered (or dropped). The plugin here is the SDK's own
// pluginMiddleware on HTTPS; the deletion is the admin command the dashboard and the CLI run.
import { deleteLink } from '@rolelink/admin';
import { listEventLog } from '@rolelink/db/events';
import { configForm, fields, MemoryTokenStore, pluginMiddleware, section } from '@rolelink/plugin-sdk';
import { testAdminDeps } from '../../packages/admin/test/support/deps';
import { DEFAULT_PLUGIN_TIMEOUTS } from '../../services/plugin-broker/src/context';
import { sweepEvents } from '../../services/plugin-broker/src/events/event-sweep';
import { startHarness, type Harness, type SeededLink } from '../../services/plugin-broker/test/support/harness';
import { until as pollUntil } from '../support/until';

const form = configForm({ name: 'SDK plugin', sections: [section('S', [fields.text('name', 'Name')])] });
const store = new MemoryTokenStore();
/** What the SDK plugin saw, in order: `event <guild>` when its link.deleted handler ran, `delete <guild>` on DELETE /config. */
const seen: string[] = [];
/** Guilds whose link.deleted handler fails (answers 500), as a plugin with a bug would. */
const failing = new Set<string>();

const app = pluginMiddleware({
  store,
  getConfig: () => form.response({ name: '' }),
  onDelete: (link) => void seen.push(`delete ${link.guildId}`),
  events: {
    'link.deleted': (_event, link) => {
      if (failing.has(link.guildId)) throw new Error('handler bug');
      seen.push(`event ${link.guildId}`);
    },
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    pluginApp: (req, res) => app(req, res),
    events: { baseMs: 20, maxMs: 80, windowMs: 60_000, timeoutMs: 10_000 },
    // Production's plugin timeouts: a loaded machine's first call to a cold plugin is not the subject here.
    timeouts: DEFAULT_PLUGIN_TIMEOUTS,
    deadlines: { register: 15_000 },
  });
});
afterAll(() => h.close());

/** Polls until `done`, for at most 30 s unless told otherwise. */
const until = <T>(read: () => Promise<T> | T, done: (v: T) => boolean, what: string, timeoutMs = 30_000) =>
  pollUntil(read, done, what, timeoutMs);

/** A link registered with the SDK plugin, which opted in to `link.deleted` on /register. */
async function registered(): Promise<SeededLink> {
  const link = await h.seedLink();
  await h.client.register(link.linkId);
  expect(store.get(link.guildId, link.roleId)?.token).toBe(link.token);
  return link;
}

/** Deletes the link as the dashboard does, then waits until its DELETE /config job ran once (and either finished or was put back). */
async function deleteThroughAdmin(link: SeededLink): Promise<void> {
  const deps = testAdminDeps(h.db, { deleteConfig: (input) => h.pluginJobs.deleteConfig(input) });
  await deleteLink(deps, { guildId: link.guildId, roleId: link.roleId });
  await until(
    () => h.broker.jobs.queue.getJobCounts('wait', 'active', 'delayed'),
    (c) => seen.includes(`delete ${link.guildId}`) || (c.wait === 0 && c.active === 0 && (c.delayed ?? 0) > 0),
    'the DELETE /config job to run once',
  );
}

describe('link.deleted to an SDK plugin', () => {
  it('is delivered and verified before DELETE /config makes the plugin forget the token', async () => {
    const link = await registered();
    await deleteThroughAdmin(link);
    expect(seen).not.toContain(`delete ${link.guildId}`); // held back while the event is pending
    await sweepEvents(h.ctx, h.broker.jobs); // the scheduled sweep's run
    await until(
      () => seen.filter((s) => s.endsWith(` ${link.guildId}`)),
      (s) => s.length === 2,
      'the event, then DELETE /config',
    );
    expect(seen.filter((s) => s.endsWith(` ${link.guildId}`))).toEqual([
      `event ${link.guildId}`,
      `delete ${link.guildId}`,
    ]);
    const [entry] = await listEventLog(h.db.pool, link.linkId);
    expect(entry).toMatchObject({ kind: 'link.deleted', state: 'delivered' });
    expect(entry!.attempts.map((a) => a.httpStatus)).toEqual([204]); // verified at the first attempt
    expect(store.get(link.guildId, link.roleId)).toBeUndefined();
  });

  it('still sends DELETE /config once an event the plugin keeps failing is dropped', async () => {
    const link = await registered();
    failing.add(link.guildId);
    await deleteThroughAdmin(link);
    expect(seen).not.toContain(`delete ${link.guildId}`);
    // As if the 24 h window had passed: the next failure drops the event.
    await h.db.pool.query(`UPDATE plugin_event SET retry_from = retry_from - interval '25 hours' WHERE link_id = $1`, [
      link.linkId,
    ]);
    await sweepEvents(h.ctx, h.broker.jobs);
    await until(
      () => seen,
      (s) => s.includes(`delete ${link.guildId}`),
      'DELETE /config after the drop',
    );
    const [entry] = await listEventLog(h.db.pool, link.linkId);
    expect(entry).toMatchObject({ kind: 'link.deleted', state: 'dropped' });
    expect(entry!.attempts.map((a) => a.httpStatus)).toEqual([500]);
    expect(store.get(link.guildId, link.roleId)).toBeUndefined();
  });
});
