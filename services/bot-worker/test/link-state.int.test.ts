import type { RunningEmulator } from '@rolelink/platform-emulator';
import { lookupMember, retryClearedCauses, setLink, setPlan, showLink, type LinkView } from '@rolelink/admin';
import { healthHistory, recordHealth } from '@rolelink/db/health';
import { findLinkById, recordHolderPage } from '@rolelink/db/links';
import { holdAdminRemoval, recordHeldChange } from '@rolelink/db/list';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { linkStateFacts, markMembersListingBlocked } from '@rolelink/db/sync';
import { MANAGE_ROLES, deriveLinkStatus } from '@rolelink/domain';
import { enqueueLinkSync, wakeLinkSync } from '@rolelink/queue';
import { createMetrics, memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { testAdminDeps } from '../../../packages/admin/test/support/deps';
import type { BotWorker } from '../src/worker';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_B,
  ROLE,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

// One state on every surface: for each failure, `rolelink link show --json` and the dashboard's
// card (both showLink), the plugin's GET /users meta (deriveLinkStatus over linkStateFacts, as listMeta
// reads it) and the last link.paused/link.resumed event agree on the state, the reason and the counts; each
// `synced` count equals the role's holders on the emulator; the member look-up reads the same facts; and
// a check that sees the cause gone retries the link at once, without waiting for its back-off.

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
let harness: InProcessBot;
const log = memoryLogger('bot-worker', 'debug');
const metrics = createMetrics('bot-worker', { defaultMetrics: false });

beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2, metrics });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());
beforeEach(async () => {
  await harness.reset({ guilds: [guildSeed(GUILD_B, 20)] });
  await db.pool.query('TRUNCATE notification, plugin_event_link CASCADE');
});

const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const admin = () => ({
  ...testAdminDeps(db),
  requestSync: (id: string) => sync(id),
  wakeSync: (id: string) => wakeLinkSync(bot.producer, id),
});
const show = () => showLink(admin(), { guildId: GUILD_B, roleId: ROLE.linked });
const lookup = (userId: string) => lookupMember(admin(), { guildId: GUILD_B, roleId: ROLE.linked, userId });
/** Who holds the linked role on the platform now: what every `synced` count must equal. */
const holders = () => sorted(emulator.state.holders(GUILD_B, ROLE.linked));
const waitDone = (linkId: string) =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what: 'the pass to finish' },
  );
const settled = () =>
  waitFor(
    () => bot.producer.queue.getJobCounts('active', 'waiting'),
    (c) => c.active === 0 && c.waiting === 0,
    { what: 'the queue to settle' },
  );
const blockOf = async (linkId: string) =>
  (
    await db.pool.query<{ blocked_reason: string | null; backoff_until: Date | null }>(
      'SELECT blocked_reason, backoff_until FROM link_sync_state WHERE link_id = $1',
      [linkId],
    )
  ).rows[0] ?? null;
const lastEvent = async (linkId: string) =>
  (
    await db.pool.query<{ kind: string; payload: Record<string, unknown> }>(
      'SELECT kind, payload FROM plugin_event WHERE link_id = $1 ORDER BY seq DESC LIMIT 1',
      [linkId],
    )
  ).rows[0] ?? null;
/** What GET /users meta reports: the same derivation over the same facts (services/api listMeta). */
const apiState = async (linkId: string) => {
  const s = deriveLinkStatus(await linkStateFacts(db.pool, (await findLinkById(db.pool, linkId))!, null));
  return {
    state: s.state,
    state_reason: s.reason,
    held_removals: s.counts.held,
    pending: s.counts.to_add + s.counts.to_remove,
  };
};

/** Every surface tells the same story: state, reason and counts. */
async function agree(linkId: string, view: LinkView) {
  const api = await apiState(linkId);
  expect(api).toEqual({
    state: view.state,
    state_reason: view.reason,
    held_removals: view.counts.held,
    pending: view.counts.to_add + view.counts.to_remove,
  });
  // A link that cannot move shows no ETA and no moving bar.
  if (view.state !== 'syncing') expect(view.progress).toMatchObject({ moving: false, eta_seconds: null });
}

async function linked(count: number) {
  await upsertGuild(db.pool, GUILD_B, 'premium');
  const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
  await subscribeLinkEvents(db.pool, link, ['link.paused', 'link.resumed', 'link.disabled', 'removal.held']);
  await writeList(db.pool, link, ids(count));
  return link;
}

describe('one state on every surface', () => {
  it('bot removed: blocked, bot_not_in_guild, nothing synced, the event in the same words', async () => {
    const link = await linked(5);
    emulator.state.setRules(GUILD_B, { botInGuild: false });
    await sync(link);
    await waitFor(
      () => lastEvent(link),
      (e) => e?.kind === 'link.paused',
      { what: 'link.paused' },
    );
    const view = await show();
    expect(view).toMatchObject({ state: 'blocked', reason: 'bot_not_in_guild', counts: { synced: 0, to_add: 5 } });
    expect(view.message).toMatch(/^Blocked: The bot is not in this server/);
    expect(await lastEvent(link)).toEqual({
      kind: 'link.paused',
      payload: { state: view.state, reason: view.reason },
    });
    await agree(link, view);
  });

  it('role above the bot: blocked, above_bot; once the role is moved back, a role read retries it at once', async () => {
    const link = await linked(6);
    emulator.state.moveRole(GUILD_B, ROLE.linked, 20);
    await sync(link);
    await waitFor(
      () => blockOf(link),
      (b) => b?.blocked_reason === 'above_bot',
      { what: 'the link blocked' },
    );
    const view = await show();
    expect(view).toMatchObject({ state: 'blocked', reason: 'above_bot', counts: { synced: 0, to_add: 6 } });
    expect(await lastEvent(link)).toEqual({ kind: 'link.paused', payload: { state: 'blocked', reason: 'above_bot' } });
    await agree(link, view);
    expect((await blockOf(link))!.backoff_until!.getTime()).toBeGreaterThan(Date.now());

    // The owner drags the bot's role back above once the card shows the block (the blocked pass has ended);
    // a check reads the roles (the dashboard's picker does).
    await settled();
    emulator.state.moveRole(GUILD_B, ROLE.linked, 3);
    const retried = await retryClearedCauses(admin(), GUILD_B, { botInGuild: true, roleProblem: () => null });
    expect(retried).toEqual([link]);
    // Not the back-off (a minute at least): the worker re-checks now and syncs.
    await waitDone(link);
    const after = await show();
    expect(after).toMatchObject({ state: 'up_to_date', reason: null, counts: { synced: 6, to_add: 0 } });
    expect(await lastEvent(link)).toEqual({
      kind: 'link.resumed',
      payload: { state: expect.stringMatching(/^(syncing|up_to_date)$/), reason: null, resolved: 'above_bot' },
    });
    await agree(link, after);
  });

  it('2FA required: blocked, mfa_required, with the fix; a passing 2FA check retries it at once', async () => {
    const link = await linked(4);
    emulator.state.setRules(GUILD_B, { mfaRequired: true, ownerMfa: false });
    await sync(link);
    await waitFor(
      () => blockOf(link),
      (b) => b?.blocked_reason === 'mfa_required',
      { what: 'the link blocked for 2FA' },
    );
    const view = await show();
    expect(view).toMatchObject({ state: 'blocked', reason: 'mfa_required' });
    expect(view.message).toMatch(/two-factor/);
    expect(await lastEvent(link)).toEqual({
      kind: 'link.paused',
      payload: { state: 'blocked', reason: 'mfa_required' },
    });
    await agree(link, view);

    // The owner fixes it after the card shows the block: by then the blocked pass has ended and its retry
    // waits out the back-off (a wake-up racing the blocked pass's own end is not what this case is about).
    await settled();
    emulator.state.setRules(GUILD_B, { ownerMfa: true });
    expect(await retryClearedCauses(admin(), GUILD_B, { twoFactorOk: true })).toEqual([link]);
    await waitDone(link);
    await waitFor(show, (v) => v.state === 'up_to_date', { what: 'the link up to date' });
  });

  it('members intent off: a warning on the card with the fix, the not-in-server count unavailable, the link still syncs', async () => {
    const link = await linked(3);
    await sync(link);
    await waitDone(link);
    await markMembersListingBlocked(db.pool, 'link-state-app');
    const view = await showLink({ ...admin(), appKey: 'link-state-app' }, { guildId: GUILD_B, roleId: ROLE.linked });
    expect(view).toMatchObject({ state: 'up_to_date', counts: { synced: 3, not_in_server: null } });
    expect(view.warnings).toEqual([
      { reason: 'members_intent_missing', message: expect.stringContaining('Server Members Intent') },
    ]);
    await agree(link, view);
  });

  it('a held removal is the state and is counted under held; a newer whole list replaces it', async () => {
    const link = await linked(5);
    await sync(link);
    await waitDone(link);
    await recordHeldChange(db.pool, link, { previous: 5, next: 1, removals: 4, removalSample: ids(4) });
    const view = await show();
    expect(view).toMatchObject({ state: 'held', reason: 'shrink', counts: { held: 4, to_remove: 0, synced: 5 } });
    expect(view.held_change).toMatchObject({ removals: 4 });
    await agree(link, view);

    // The plugin sends a newer whole list instead: the hold is gone from every surface.
    await db.pool.query("UPDATE role_link SET list_replaced_at = now() + interval '1 second' WHERE id = $1", [link]);
    const replaced = await show();
    expect(replaced).toMatchObject({ state: 'up_to_date', counts: { held: 0 }, held_change: null });
    await agree(link, replaced);
  });

  it("an admin-source hold's removal is counted once, under held", async () => {
    const link = await linked(3);
    await sync(link);
    await waitDone(link);
    await holdAdminRemoval(db.pool, link, ids(1)[0]!);
    const view = await show();
    expect(view).toMatchObject({ state: 'held', reason: 'admin_source', counts: { held: 1 } });
    await agree(link, view);
  });

  it('disabled: the state and the event say so', async () => {
    const link = await linked(2);
    await setLink(admin(), { guildId: GUILD_B, roleId: ROLE.linked, enabled: false });
    await settled();
    const view = await show();
    expect(view).toMatchObject({ state: 'disabled', reason: null });
    expect((await lastEvent(link))?.kind).toBe('link.disabled');
    await agree(link, view);
  });

  it('paused by the slots: paused, slot_allowance, on the card and in the event', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const older = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.other });
    void older;
    const second = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await subscribeLinkEvents(db.pool, second, ['link.paused', 'link.resumed']);
    await setPlan(admin(), { guildId: GUILD_B, plan: 'free', slots: 0 });
    let view = await show();
    // Two links fit the free plan's two slots: not paused yet.
    expect(view.state).not.toBe('paused');
    const third = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.third });
    await subscribeLinkEvents(db.pool, third, ['link.paused', 'link.resumed']);
    await setPlan(admin(), { guildId: GUILD_B, plan: 'premium' });
    await setPlan(admin(), { guildId: GUILD_B, plan: 'free', slots: 0 });
    view = await showLink(admin(), { guildId: GUILD_B, roleId: ROLE.third });
    expect(view).toMatchObject({ state: 'paused', reason: 'slot_allowance' });
    expect(await lastEvent(third)).toEqual({
      kind: 'link.paused',
      payload: { state: 'paused', reason: 'slot_allowance' },
    });
    await agree(third, view);
  });
  it('Manage Roles missing: blocked, no_manage_roles, nothing synced, the event in the same words', async () => {
    const link = await linked(4);
    emulator.state.guild(GUILD_B)!.botRole.permissions &= ~MANAGE_ROLES;
    await sync(link);
    await waitFor(
      () => blockOf(link),
      (b) => b?.blocked_reason === 'no_manage_roles',
      { what: 'the link blocked for Manage Roles' },
    );
    const view = await show();
    expect(view).toMatchObject({ state: 'blocked', reason: 'no_manage_roles', counts: { synced: 0, to_add: 4 } });
    expect(view.message).toMatch(/^Blocked: .*Manage Roles/);
    expect(view.counts.synced).toBe(holders().length);
    expect(await lastEvent(link)).toEqual({
      kind: 'link.paused',
      payload: { state: 'blocked', reason: 'no_manage_roles' },
    });
    await agree(link, view);
  });

  it('account deleted: counted under deleted, not pending; the look-up says the account was deleted', async () => {
    const gone = ids(4)[3]!;
    emulator.state.deleteUser(gone);
    const link = await linked(4);
    await sync(link);
    await waitDone(link);
    const view = await show();
    expect(view).toMatchObject({
      state: 'up_to_date',
      reason: null,
      counts: { listed: 4, synced: 3, to_add: 0, to_remove: 0, deleted: 1, not_in_server: 0, over_limit: 0 },
    });
    expect(holders()).toEqual(ids(3));
    expect(view.counts.synced).toBe(holders().length);
    await agree(link, view);
    const who = await lookup(gone);
    expect(who).toMatchObject({ state: 'synced', reason: 'account_deleted', should_hold: false });
    expect(who.message).toMatch(/^Account deleted/);
    expect(who.platform).toMatchObject({ outcome: 'unknown_user' });
    expect(await lookup(ids(1)[0]!)).toMatchObject({ reason: 'synced', should_hold: true });

    // A synced holder deletes their account, then the plugin drops them: the removal answers 10013 and
    // leaves the synced count as surely as a 204 would.
    emulator.state.deleteUser(ids(3)[2]!);
    await writeList(db.pool, link, ids(2));
    await sync(link);
    await waitDone(link);
    const after = await show();
    expect(holders()).toEqual(ids(2));
    expect(after).toMatchObject({ state: 'up_to_date', counts: { listed: 2, synced: 2, to_remove: 0, deleted: 0 } });
    await agree(link, after);
  });

  it('member left: counted under not_in_server, not pending; the look-up says not in the server', async () => {
    const left = ids(4)[3]!;
    emulator.state.removeMember(GUILD_B, left);
    const link = await linked(4);
    await sync(link);
    await waitDone(link);
    const view = await show();
    expect(view).toMatchObject({
      state: 'up_to_date',
      reason: null,
      counts: { listed: 4, synced: 3, to_add: 0, to_remove: 0, deleted: 0, not_in_server: 1 },
    });
    expect(holders()).toEqual(ids(3));
    expect(view.counts.synced).toBe(holders().length);
    await agree(link, view);
    const who = await lookup(left);
    expect(who).toMatchObject({ state: 'synced', reason: 'not_in_server', should_hold: false });
    expect(who.message).toMatch(/^Not in the server/);
    expect(who.platform).toMatchObject({ outcome: 'not_in_guild' });

    // A synced holder leaves, then the plugin drops them: the removal answers 10007 and leaves the count.
    emulator.state.removeMember(GUILD_B, ids(3)[2]!);
    await writeList(db.pool, link, ids(2));
    await sync(link);
    await waitDone(link);
    const after = await show();
    expect(holders()).toEqual(ids(2));
    expect(after).toMatchObject({
      state: 'up_to_date',
      counts: { listed: 2, synced: 2, to_remove: 0, not_in_server: 0 },
    });
    await agree(link, after);
  });

  it("hand-over with holders: awaiting_first_list, the role's holders counted as synced; the first list is then applied", async () => {
    const before = ids(4);
    for (const u of before) emulator.state.setMemberRoles(GUILD_B, u, [ROLE.linked]);
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked, firstList: false });
    await subscribeLinkEvents(db.pool, link, ['link.paused', 'link.resumed', 'link.disabled', 'removal.held']);
    // Link creation's snapshot of the role's current holders (hand-over: recorded as applied, not listed).
    await recordHolderPage(db.pool, link, before, false);
    await sync(link);
    await settled();
    const view = await show();
    expect(view).toMatchObject({
      state: 'awaiting_first_list',
      reason: null,
      counts: { listed: 0, synced: 4, to_add: 0, to_remove: 0, held: 0 },
    });
    // Nothing was changed on the platform before the first list.
    expect(holders()).toEqual(before);
    expect(view.counts.synced).toBe(holders().length);
    expect(await lastEvent(link)).toBeNull();
    await agree(link, view);

    // The plugin's first whole list names the holders and two more: applied, counts still the platform's.
    await writeList(db.pool, link, ids(6));
    await sync(link);
    await waitDone(link);
    const after = await show();
    expect(after).toMatchObject({ state: 'up_to_date', counts: { listed: 6, synced: 6, to_add: 0, to_remove: 0 } });
    expect(holders()).toEqual(ids(6));
    await agree(link, after);
  });

  it("plan limit exceeded: the lowest ids synced, the rest counted under over_limit; the look-up says held by the plan's limit", async () => {
    await harness.reset({ guilds: [guildSeed(GUILD_B, 110)] });
    await upsertGuild(db.pool, GUILD_B, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await subscribeLinkEvents(db.pool, link, ['link.paused', 'link.resumed', 'link.disabled', 'removal.held']);
    await writeList(db.pool, link, ids(102));
    await sync(link);
    await waitDone(link);
    const view = await show();
    expect(view.limits.synced_limit).toBe(100);
    expect(view).toMatchObject({
      state: 'up_to_date',
      reason: null,
      counts: { listed: 102, synced: 100, to_add: 0, to_remove: 0, over_limit: 2 },
    });
    expect(holders()).toEqual(ids(100));
    expect(view.counts.synced).toBe(holders().length);
    await agree(link, view);
    const beyond = await lookup(ids(102)[101]!);
    expect(beyond).toMatchObject({ state: 'over_limit', reason: 'over_limit', should_hold: false });
    expect(beyond.message).toMatch(/beyond the plan's synced limit/);
    expect(await lookup(ids(100)[99]!)).toMatchObject({ state: 'synced', reason: 'synced', should_hold: true });
  });

  it("plugin down: the link's state is not the plugin's health; it syncs, says up_to_date on every surface, and the health is told apart", async () => {
    // Syncing reads the stored list, never the plugin: a plugin that does not answer stops nothing the bot does.
    const link = await linked(3);
    const { plugin_url } = await show();
    await recordHealth(
      db.pool,
      plugin_url,
      { status: 'unreachable', latencyMs: null, detail: { reason: 'connect ECONNREFUSED' } },
      new Date(),
    );
    await sync(link);
    await waitDone(link);
    const view = await show();
    expect(view).toMatchObject({
      state: 'up_to_date',
      reason: null,
      message: null,
      warnings: [],
      counts: { listed: 3, synced: 3, to_add: 0, to_remove: 0 },
    });
    expect(holders()).toEqual(ids(3));
    expect(view.counts.synced).toBe(holders().length);
    // No link.paused for a plugin's outage: the plugin hears nothing it would have to act on.
    expect(await lastEvent(link)).toBeNull();
    await agree(link, view);
    // The card's health (the plugin status page's) is where the outage shows.
    expect((await healthHistory(db.pool, plugin_url))[0]).toMatchObject({ status: 'unreachable' });
  });
});
