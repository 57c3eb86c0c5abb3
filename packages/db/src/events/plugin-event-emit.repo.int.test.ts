import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import {
  recordFirstSyncCompleted,
  recordGuildLinkEvents,
  recordMemberExpiredEvents,
  recordNotInGuildEvent,
  recordRoleRestoredEvents,
} from './plugin-event-emit.repo';
import { subscribeLinkEvents } from './plugin-events.repo';
import { toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const events = async (linkId: string) =>
  (
    await db.pool.query<{ kind: string; payload: unknown }>(
      'SELECT kind, payload FROM plugin_event WHERE link_id = $1 ORDER BY seq',
      [linkId],
    )
  ).rows;
const HIGH = '18446744073709551615'; // above 2^63: stored with the offset, rendered back as itself

describe('event emission helpers (plugin-event-emit.repo)', () => {
  it('records member.role_restored only for hand-removed users still on the list, in user-id order', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['member.role_restored']);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('i')} FROM unnest($2::numeric[]) i`,
      [link.linkId, [HIGH, '200000000000000000']],
    );
    expect(
      await recordRoleRestoredEvents(db.pool, link.linkId, [HIGH, '300000000000000000', '200000000000000000'], 'drift'),
    ).toBe(2);
    expect(await events(link.linkId)).toEqual([
      { kind: 'member.role_restored', payload: { user_id: '200000000000000000', source: 'drift' } },
      { kind: 'member.role_restored', payload: { user_id: HIGH, source: 'drift' } },
    ]);
  });

  it('records sync.first_completed once, only while the link was never walked', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['sync.first_completed']);
    await db.pool.query('INSERT INTO link_sync_state (link_id) VALUES ($1)', [link.linkId]);
    expect(await recordFirstSyncCompleted(db.pool, link.linkId, 42)).not.toBeNull();
    expect(await recordFirstSyncCompleted(db.pool, link.linkId, 43)).toBeNull();
    const later = await seedLink(db);
    await subscribeLinkEvents(db.pool, later.linkId, ['sync.first_completed']);
    await db.pool.query('INSERT INTO link_sync_state (link_id, journal_seq) VALUES ($1, 7)', [later.linkId]);
    expect(await recordFirstSyncCompleted(db.pool, later.linkId, 1)).toBeNull();
    expect(await events(link.linkId)).toEqual([{ kind: 'sync.first_completed', payload: { applied: 42 } }]);
  });

  it('records not-in-guild, expiry and per-guild pause events with their payloads, and nothing for links not opted in', async () => {
    const link = await seedLink(db);
    const quiet = await seedLink(db, { guildId: link.guildId });
    await subscribeLinkEvents(db.pool, link.linkId, ['member.not_in_guild', 'member.expired', 'link.paused']);
    await recordNotInGuildEvent(db.pool, link.linkId, '123456789012345678');
    expect(
      await recordMemberExpiredEvents(
        db.pool,
        link.linkId,
        [HIGH, '123456789012345678'],
        new Date('2026-12-01T00:00:00Z'),
      ),
    ).toBe(2);
    expect(
      await recordMemberExpiredEvents(db.pool, quiet.linkId, ['123456789012345678'], new Date('2026-12-01T00:00:00Z')),
    ).toBe(0);
    await recordGuildLinkEvents(db.pool, link.guildId, [link.roleId, quiet.roleId], 'link.paused');
    expect(await events(link.linkId)).toEqual([
      { kind: 'member.not_in_guild', payload: { user_id: '123456789012345678', reason: 'not_a_member' } },
      { kind: 'member.expired', payload: { user_id: '123456789012345678', expired_at: '2026-12-01T00:00:00.000Z' } },
      { kind: 'member.expired', payload: { user_id: HIGH, expired_at: '2026-12-01T00:00:00.000Z' } },
      // The link's derived state (deriveLinkStatus), whatever the caller thought: this one is within its slots.
      { kind: 'link.paused', payload: { state: 'up_to_date', reason: null } },
    ]);
    expect(await events(quiet.linkId)).toEqual([]);
  });
});
