import { listEventLog, subscribeLinkEvents } from '@rolelink/db/events';
import { replaceList } from '@rolelink/db/list';
import type { AppError } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, userIds } from '../../../test/support/fixtures';
import type { AdminDeps } from './deps';
import { showLink } from './link-show';
import { applyRemovals, requestListResend } from './removals';
import { testAdminDeps } from '../test/support/deps';

let db: TestDb;
let deps: AdminDeps;
beforeAll(async () => {
  db = await createTestDb();
  deps = { ...testAdminDeps(db), actor: { id: '100000000000000009', name: 'owner', via: 'dashboard' } };
});
afterAll(() => db.drop());

/** A link whose plugin pushed 50 users and then 5: the second list is held (a large removal). */
async function heldLink(events: string[] = ['list.resend_requested']) {
  const link = await seedLink(db);
  if (events.length) await subscribeLinkEvents(db.pool, link.linkId, events);
  const ids = userIds(50);
  expect(
    await replaceList(db.pool, { linkId: link.linkId, source: { kind: 'ids', ids }, storedLimit: 10_000 }),
  ).toMatchObject({ kind: 'replaced' });
  const held = await replaceList(db.pool, {
    linkId: link.linkId,
    source: { kind: 'ids', ids: ids.slice(0, 5) },
    storedLimit: 10_000,
  });
  expect(held.kind).toBe('held');
  return { ...link, at: { guildId: link.guildId, roleId: link.roleId }, five: ids.slice(0, 5) };
}

const resendEvents = async (linkId: string) =>
  (await listEventLog(db.pool, linkId)).filter((e) => e.kind === 'list.resend_requested');

describe('requestListResend: "Ask the plugin to resend"', () => {
  it('queues one signed-event row and one audit entry for the applied removal; a repeat within five minutes queues nothing', async () => {
    const link = await heldLink();
    const applied = await applyRemovals(deps, link.at);
    const first = await requestListResend(deps, link.at);
    expect(first).toMatchObject({
      change_id: applied.change_id,
      window_ends_at: applied.window_ends_at,
      queued: true,
      event_id: expect.stringMatching(/^evt_\d+$/),
    });
    expect(Date.parse(first.next_request_at) - Date.parse(first.requested_at)).toBe(5 * 60 * 1000);

    const { rows } = await db.pool.query<{ kind: string; payload: unknown; state: string }>(
      `SELECT kind, payload, state FROM plugin_event WHERE link_id = $1 AND kind = 'list.resend_requested'`,
      [link.linkId],
    );
    expect(rows).toEqual([
      {
        kind: 'list.resend_requested',
        payload: { change_id: applied.change_id, window_ends_at: applied.window_ends_at },
        state: 'pending',
      },
    ]);

    // Twice at once (a double click) and once more: still one event, and every answer names the first request.
    const again = await Promise.all([
      requestListResend(deps, link.at),
      requestListResend(deps, link.at),
      requestListResend(deps, link.at),
    ]);
    for (const a of again) expect(a).toMatchObject({ queued: false, event_id: null, requested_at: first.requested_at });
    expect(await resendEvents(link.linkId)).toHaveLength(1);

    const audit = await db.pool.query(
      "SELECT actor_name, via, detail FROM admin_audit WHERE guild_id = $1 AND action = 'list_resend_requested'",
      [link.guildId],
    );
    expect(audit.rows).toEqual([
      {
        actor_name: 'owner',
        via: 'dashboard',
        detail: { change_id: applied.change_id, event_id: first.event_id, window_ends_at: applied.window_ends_at },
      },
    ]);

    // Five minutes later (the request's time moved back) a new request queues a second event.
    await db.pool.query(
      "UPDATE held_change SET resend_requested_at = resend_requested_at - interval '5 minutes' WHERE change_id = $1",
      [applied.change_id],
    );
    expect(await requestListResend(deps, link.at)).toMatchObject({ queued: true });
    expect(await resendEvents(link.linkId)).toHaveLength(2);
  });

  it('link show says what the removal waits for, and that removals started once the list arrived (no resend note then)', async () => {
    const link = await heldLink();
    expect((await showLink(deps, link.at)).removal).toBeNull();
    const applied = await applyRemovals(deps, link.at);
    expect((await showLink(deps, link.at)).removal).toEqual({
      change_id: applied.change_id,
      kind: 'shrink',
      removals: 45,
      confirmed_at: expect.any(String),
      window_ends_at: applied.window_ends_at,
      state: 'awaiting_list',
      list_resent_at: null,
      resend: { listening: true, requested_at: null, available_at: null },
    });
    const asked = await requestListResend(deps, link.at);
    expect((await showLink(deps, link.at)).removal?.resend).toEqual({
      listening: true,
      requested_at: asked.requested_at,
      available_at: asked.next_request_at,
    });

    // The plugin resends within the window: the write goes through and spends the confirmation.
    expect(
      await replaceList(db.pool, { linkId: link.linkId, source: { kind: 'ids', ids: link.five }, storedLimit: 10_000 }),
    ).toMatchObject({ kind: 'replaced', userCount: 5 });
    const removing = await showLink(deps, link.at);
    expect(removing.held_change).toBeNull();
    // The list write asked the worker to sync (its journal is ahead): the removals are under way.
    expect(removing.removal).toMatchObject({ state: 'removing', list_resent_at: expect.any(String) });
    await expect(requestListResend(deps, link.at)).rejects.toMatchObject({ status: 409, code: 'list_already_resent' });

    // The worker caught up (it records the journal position it synced, and no change is left).
    await db.pool.query(
      'UPDATE role_link SET sync_done_seq = sync_wanted_seq, pending_count = 0, applied_count = 5 WHERE id = $1',
      [link.linkId],
    );
    expect((await showLink(deps, link.at)).removal).toMatchObject({ state: 'applied' });
  });

  it('refuses in the error shape when nothing waits for the list, the window ended, a newer hold waits, or the plugin cannot hear it', async () => {
    const link = await heldLink();
    await expect(requestListResend(deps, link.at)).rejects.toMatchObject({ status: 409, code: 'no_applied_removal' });
    const applied = await applyRemovals(deps, link.at);
    await db.pool.query(
      "UPDATE held_change SET created_at = created_at - interval '61 minutes', confirmed_at = confirmed_at - interval '61 minutes' WHERE change_id = $1",
      [applied.change_id],
    );
    await expect(requestListResend(deps, link.at)).rejects.toMatchObject({ status: 409, code: 'confirm_window_ended' });
    expect((await showLink(deps, link.at)).removal).toMatchObject({ state: 'window_ended' });
    // The plugin sends the short list again after the window: a newer hold, which the owner must see first.
    expect(
      (
        await replaceList(db.pool, {
          linkId: link.linkId,
          source: { kind: 'ids', ids: link.five },
          storedLimit: 10_000,
        })
      ).kind,
    ).toBe('held');
    const superseded = await requestListResend(deps, link.at).then(
      () => null,
      (err: AppError) => err,
    );
    expect(superseded).toMatchObject({ status: 409, code: 'held_change_superseded' });
    // The body is the error shape (no code): the message says which refusal it is.
    expect(superseded?.toBody()).toEqual({
      statusCode: 409,
      message: 'A newer large removal was held since this one was applied; review it before asking for the list',
    });

    const deaf = await heldLink([]);
    await applyRemovals(deps, deaf.at);
    await expect(requestListResend(deps, deaf.at)).rejects.toMatchObject({ status: 409, code: 'plugin_not_listening' });
    expect((await showLink(deps, deaf.at)).removal?.resend.listening).toBe(false);
    await expect(requestListResend(deps, { guildId: deaf.guildId, roleId: '1' })).rejects.toMatchObject({
      status: 404,
      code: 'link_not_found',
    });
    await expect(requestListResend(deps, { guildId: 'x', roleId: deaf.roleId })).rejects.toMatchObject({ status: 400 });
    const audit = await db.pool.query(
      "SELECT 1 FROM admin_audit WHERE guild_id = ANY($1::bigint[]) AND action = 'list_resend_requested'",
      [[link.guildId, deaf.guildId]],
    );
    expect(audit.rows).toHaveLength(0);
  });
});
