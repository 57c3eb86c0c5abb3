import { listEventLog, subscribeLinkEvents } from '@rolelink/db/events';
import { recordHeldChange } from '@rolelink/db/list';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedGuild, seedLink } from '../../../test/support/fixtures';
import type { AdminDeps } from './deps';
import { setPlan } from './guilds';
import { deleteLink } from './link-delete';
import { setLink } from './link-update';
import { applyRemovals } from './removals';
import { testAdminDeps } from '../test/support/deps';

let db: TestDb;
let deps: AdminDeps;
const deleted: string[] = [];
beforeAll(async () => {
  db = await createTestDb();
  // The broker's side of deletion is not under test here (services/plugin-broker covers it).
  deps = testAdminDeps(db, { deleteConfig: (i) => Promise.resolve(void deleted.push(i.roleId)) });
});
afterAll(() => db.drop());

const kinds = async (linkId: string) => (await listEventLog(db.pool, linkId)).map((e) => [e.seq, e.kind]).reverse();
const all = [
  'link.paused',
  'link.resumed',
  'link.disabled',
  'link.enabled',
  'link.deleted',
  'removal.held',
  'removal.applied',
];

describe('link lifecycle events (docs/api.md "Events to plugins")', () => {
  it('records disable, enable, a held removal, its application and the deletion, in order, for a link that opted in', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, all);
    await setLink(deps, { guildId: link.guildId, roleId: link.roleId, enabled: false });
    await setLink(deps, { guildId: link.guildId, roleId: link.roleId, enabled: true });
    const held = await recordHeldChange(db.pool, link.linkId, {
      previous: 100,
      next: 10,
      removals: 90,
      removalSample: [],
    });
    const applied = await applyRemovals(deps, { guildId: link.guildId, roleId: link.roleId });
    await deleteLink(deps, { guildId: link.guildId, roleId: link.roleId });
    expect(await kinds(link.linkId)).toEqual([
      ['1', 'link.disabled'],
      ['2', 'link.enabled'],
      ['3', 'removal.held'],
      ['4', 'removal.applied'],
      ['5', 'link.deleted'],
    ]);
    const { rows } = await db.pool.query<{ kind: string; payload: unknown }>(
      `SELECT kind, payload FROM plugin_event WHERE link_id = $1 AND kind LIKE 'removal.%' ORDER BY seq`,
      [link.linkId],
    );
    expect(rows).toEqual([
      { kind: 'removal.held', payload: { change_id: held.changeId, previous: 100, next: 10, removals: 90 } },
      {
        kind: 'removal.applied',
        payload: { change_id: held.changeId, removals: 90, window_ends_at: applied.window_ends_at },
      },
    ]);
    expect(deleted).toContain(link.roleId);
  });

  it('records link.paused and link.resumed when a plan change moves a link across the slot allowance', async () => {
    const guildId = await seedGuild(db, { plan: 'premium', paidSlots: 5 });
    const first = await seedLink(db, { guildId });
    await seedLink(db, { guildId });
    // The free plan allows 2 links: the third (newest) is the one paused.
    const third = await seedLink(db, { guildId });
    await subscribeLinkEvents(db.pool, third.linkId, all);
    await subscribeLinkEvents(db.pool, first.linkId, all);
    await setPlan(deps, { guildId, plan: 'free', slots: 0 });
    await setPlan(deps, { guildId, plan: 'premium', slots: 5 });
    expect(await kinds(third.linkId)).toEqual([
      ['1', 'link.paused'],
      ['2', 'link.resumed'],
    ]);
    expect(await kinds(first.linkId)).toEqual([]);
  });

  it('records link.disabled / link.enabled and their audit entries only when the flag changes', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, all);
    const syncs: string[] = [];
    const counting: AdminDeps = { ...deps, requestSync: (id) => Promise.resolve(void syncs.push(id)) };
    const set = (flags: { enabled?: boolean; trusted?: boolean }) =>
      setLink(counting, { guildId: link.guildId, roleId: link.roleId, ...flags });
    await set({ enabled: true }); // already enabled
    await set({ enabled: false });
    await set({ enabled: false });
    await set({ enabled: false, trusted: true });
    await set({ enabled: true, trusted: true });
    await set({ trusted: true });
    expect(await kinds(link.linkId)).toEqual([
      ['1', 'link.disabled'],
      ['2', 'link.enabled'],
    ]);
    const { rows } = await db.pool.query<{ action: string }>(
      'SELECT action FROM admin_audit WHERE role_id = $1 ORDER BY id',
      [link.roleId],
    );
    expect(rows.map((r) => r.action)).toEqual(['link_disabled', 'trusted_set', 'link_enabled']);
    expect(syncs).toEqual([link.linkId, link.linkId]);
  });

  it('records nothing for a link whose plugin did not opt in', async () => {
    const link = await seedLink(db);
    await setLink(deps, { guildId: link.guildId, roleId: link.roleId, enabled: false });
    await recordHeldChange(db.pool, link.linkId, { previous: 100, next: 10, removals: 90, removalSample: [] });
    await deleteLink(deps, { guildId: link.guildId, roleId: link.roleId });
    const { rows } = await db.pool.query(
      'SELECT 1 FROM plugin_event WHERE link_id = $1 UNION ALL SELECT 1 FROM plugin_event_link WHERE link_id = $1',
      [link.linkId],
    );
    expect(rows).toEqual([]);
  });
});
