import { createTestDb, type TestDb } from '../../../../test/support/db';
import { inLateHalfMillisecond } from '../../../../test/support/clock';
import { seedLink } from '../../../../test/support/fixtures';
import { inTransaction } from '../client/queryable';
import {
  claimEventDelivery,
  linksWithDueEvents,
  listEventLog,
  nextPendingEvent,
  pruneEvents,
  recordEvent,
  recordEventAttempt,
  recordLinkDeletedEvent,
  releaseEventDelivery,
  resendEvent,
  subscribeLinkEvents,
  subscribePluginEvents,
} from './plugin-events.repo';
import { recordEventsDroppedNote } from '../notifications/notifications.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const count = async (table: string, linkId: string) =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE link_id = $1`, [linkId])).rows[0]!
    .n;

describe('plugin events repository (plugin_event_link, plugin_event, plugin_event_attempt)', () => {
  it('records nothing at all for a link whose plugin did not opt in, nor for a kind it did not ask for', async () => {
    const link = await seedLink(db);
    expect(await recordEvent(db.pool, link.linkId, 'member.not_in_guild', { user_id: '1' })).toBeNull();
    expect(await count('plugin_event', link.linkId)).toBe(0);
    expect(await count('plugin_event_link', link.linkId)).toBe(0);
    await subscribeLinkEvents(db.pool, link.linkId, ['removal.held']);
    expect(await recordEvent(db.pool, link.linkId, 'member.not_in_guild', { user_id: '1' })).toBeNull();
    expect(await count('plugin_event', link.linkId)).toBe(0);
  });

  it('numbers a link’s events 1, 2, 3 in the order they were recorded and hands them out lowest first', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['member.not_in_guild', 'link.paused']);
    const a = await recordEvent(db.pool, link.linkId, 'member.not_in_guild', { user_id: '5' });
    const b = await inTransaction(db.pool, (c) => recordEvent(c, link.linkId, 'link.paused', { reason: 'slots' }));
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    const { rows } = await db.pool.query<{ seq: string; kind: string }>(
      'SELECT seq::text, kind FROM plugin_event WHERE link_id = $1 ORDER BY id',
      [link.linkId],
    );
    expect(rows).toEqual([
      { seq: '1', kind: 'member.not_in_guild' },
      { seq: '2', kind: 'link.paused' },
    ]);
    expect((await nextPendingEvent(db.pool, link.linkId))?.id).toBe(a);
    expect(await linksWithDueEvents(db.pool)).toContain(link.linkId);
  });

  it('takes the pending events of a link in numeric seq order, 9 before 10 and 11 (not as text)', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['link.enabled', 'member.not_in_guild']);
    const ids: string[] = [];
    for (let i = 1; i <= 11; i++)
      ids.push((await recordEvent(db.pool, link.linkId, i === 9 ? 'link.enabled' : 'member.not_in_guild', { i }))!);
    for (const id of ids.slice(0, 8))
      await recordEventAttempt(db.pool, id, { httpStatus: 204, error: null, latencyMs: 1 }, { state: 'delivered' });
    const order: string[] = [];
    for (
      let next = await nextPendingEvent(db.pool, link.linkId);
      next;
      next = await nextPendingEvent(db.pool, link.linkId)
    ) {
      order.push(`${next.seq} ${next.kind}`);
      await recordEventAttempt(
        db.pool,
        next.id,
        { httpStatus: 204, error: null, latencyMs: 1 },
        { state: 'delivered' },
      );
    }
    expect(order).toEqual(['9 link.enabled', '10 member.not_in_guild', '11 member.not_in_guild']);
  });

  it('takes an event recorded or resent now as due at once, though the column rounds the time up', async () => {
    const [fresh, resent] = [await seedLink(db), await seedLink(db)];
    for (const l of [fresh, resent]) await subscribeLinkEvents(db.pool, l.linkId, ['link.paused']);
    const id = (await recordEvent(db.pool, resent.linkId, 'link.paused', { reason: 'slots' }))!;
    await recordEventAttempt(db.pool, id, { httpStatus: 204, error: null, latencyMs: 3 }, { state: 'delivered' });
    await inLateHalfMillisecond(db.pool, async (c) => {
      await recordEvent(c, fresh.linkId, 'link.paused', { reason: 'slots' });
      await resendEvent(c, resent.linkId, id);
      expect(await linksWithDueEvents(c)).toEqual(expect.arrayContaining([fresh.linkId, resent.linkId]));
    });
  });

  it('rolls the event back with its caller’s transaction (the row is the outbox)', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['removal.held']);
    await expect(
      inTransaction(db.pool, async (c) => {
        await recordEvent(c, link.linkId, 'removal.held', { previous: 10, next: 1, removals: 9 });
        throw new Error('the hold failed');
      }),
    ).rejects.toThrow('the hold failed');
    expect(await count('plugin_event', link.linkId)).toBe(0);
  });

  it('lets one sender hold a link’s lease at a time', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['link.paused']);
    const first = await claimEventDelivery(db.pool, link.linkId, 60_000);
    expect(first).toMatchObject({
      linkId: link.linkId,
      guildId: link.guildId,
      roleId: link.roleId,
      pluginUrl: 'https://plugin.example.com',
      linkDeleted: false,
    });
    expect(await claimEventDelivery(db.pool, link.linkId, 60_000)).toBeNull();
    await releaseEventDelivery(db.pool, link.linkId);
    expect(await claimEventDelivery(db.pool, link.linkId, 60_000)).not.toBeNull();
  });

  it('logs attempts, retries, delivers, drops, and resends a finished event with a fresh window', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['link.paused']);
    const id = (await recordEvent(db.pool, link.linkId, 'link.paused', { reason: 'slots' }))!;
    const later = new Date(Date.now() + 3_600_000);
    await recordEventAttempt(
      db.pool,
      id,
      { httpStatus: 500, error: null, latencyMs: 12 },
      { state: 'retry', at: later },
    );
    expect(await linksWithDueEvents(db.pool)).not.toContain(link.linkId);
    expect((await nextPendingEvent(db.pool, link.linkId))?.nextAttemptAt.getTime()).toBe(later.getTime());
    await recordEventAttempt(
      db.pool,
      id,
      { httpStatus: null, error: 'timeout', latencyMs: null },
      { state: 'dropped' },
    );
    const [log] = await listEventLog(db.pool, link.linkId);
    expect(log).toMatchObject({
      id,
      seq: '1',
      kind: 'link.paused',
      state: 'dropped',
      attemptCount: 2,
      nextAttemptAt: null,
    });
    expect(log!.attempts.map((a) => [a.httpStatus, a.error, a.latencyMs])).toEqual([
      [500, null, 12],
      [null, 'timeout', null],
    ]);
    expect(log!.attempts[0]!.at.getTime()).toBeGreaterThan(Date.now() - 600_000);
    expect(await resendEvent(db.pool, link.linkId, id)).toEqual({ kind: 'link.paused', seq: '1' });
    expect(await resendEvent(db.pool, link.linkId, id)).toBeNull(); // already pending
    const other = await seedLink(db);
    expect(await resendEvent(db.pool, other.linkId, id)).toBeNull();
    expect(await nextPendingEvent(db.pool, link.linkId)).toMatchObject({ id, attemptCount: 2 });
    await recordEventAttempt(db.pool, id, { httpStatus: 204, error: null, latencyMs: 3 }, { state: 'delivered' });
    expect(await nextPendingEvent(db.pool, link.linkId)).toBeNull();
  });

  it('subscribes every link of a plugin URL from its health report, touching only rows whose kinds change', async () => {
    const a = await seedLink(db);
    const b = await seedLink(db);
    await db.pool.query(`UPDATE role_link SET plugin_url = 'https://events.example.com' WHERE id = ANY($1::bigint[])`, [
      [a.linkId, b.linkId],
    ]);
    expect(await subscribePluginEvents(db.pool, 'https://events.example.com', ['link.paused'])).toBe(2);
    expect(await subscribePluginEvents(db.pool, 'https://events.example.com', ['link.paused'])).toBe(0);
    expect(await subscribePluginEvents(db.pool, 'https://events.example.com', [])).toBe(2);
    expect(await recordEvent(db.pool, a.linkId, 'link.paused', { reason: 'x' })).toBeNull();
  });

  it('keeps a deleted link’s subscription until its last event is finished, then prunes it; one drop note an hour', async () => {
    const link = await seedLink(db);
    await subscribeLinkEvents(db.pool, link.linkId, ['link.deleted', 'link.paused']);
    const id = (await recordLinkDeletedEvent(db.pool, link.linkId))!;
    expect(await recordEvent(db.pool, link.linkId, 'link.paused', { reason: 'after delete' })).toBeNull();
    await db.pool.query('DELETE FROM role_link WHERE id = $1', [link.linkId]);
    expect(await claimEventDelivery(db.pool, link.linkId, 1000)).toMatchObject({ linkDeleted: true });
    await pruneEvents(db.pool, 7);
    expect(await count('plugin_event_link', link.linkId)).toBe(1);
    await recordEventAttempt(
      db.pool,
      id,
      { httpStatus: null, error: 'network', latencyMs: null },
      { state: 'dropped' },
    );
    const note = { event_id: id, kind: 'link.deleted', attempts: 1, plugin_url: 'https://plugin.example.com' };
    expect(await recordEventsDroppedNote(db.pool, link.linkId, note)).toBe(true);
    expect(await recordEventsDroppedNote(db.pool, link.linkId, note)).toBe(false);
    const { rows } = await db.pool.query<{ kind: string; role_id: string }>(
      `SELECT kind, role_id::text FROM notification WHERE dedupe_key = $1`,
      [`events:${link.linkId}`],
    );
    expect(rows).toEqual([{ kind: 'events_dropped', role_id: link.roleId }]);
    await db.pool.query(`UPDATE plugin_event SET finished_at = now() - interval '8 days' WHERE id = $1`, [id]);
    expect(await pruneEvents(db.pool, 7)).toBe(1);
    expect(await count('plugin_event_link', link.linkId)).toBe(0);
  });
});
