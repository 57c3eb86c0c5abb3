import type { RunningEmulator } from '@rolelink/platform-emulator';
import { showLink } from '@rolelink/admin';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { enqueueLinkSync } from '@rolelink/queue';
import { createMetrics, memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { testAdminDeps } from '../../../packages/admin/test/support/deps';
import type { BotWorker } from '../src/worker';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
  GUILD_B,
  ROLE,
  STRANGERS,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  outcomes,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

// Each platform rule the emulator enforces, met end to end through the worker.

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
let harness: InProcessBot;
const log = memoryLogger('bot-worker', 'debug');
const metrics = createMetrics('bot-worker', { defaultMetrics: false });
const members = ids(40);

beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2, metrics });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());
beforeEach(async () => {
  await harness.reset({ guilds: [guildSeed(GUILD_A, members.length), guildSeed(GUILD_B, 20)] });
  await db.pool.query('TRUNCATE notification, plugin_event_link CASCADE');
  log.lines.length = 0;
});

const holders = (guild: string, role: string) => sorted(emulator.state.holders(guild, role));
const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const waitDone = (linkId: string, what = 'the pass to finish') =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );
const settled = () =>
  waitFor(
    () => bot.producer.queue.getJobCounts('active', 'waiting'),
    (c) => c.active === 0 && c.waiting === 0,
    { what: 'the queue to settle' },
  );
const outage = async (guildId: string) =>
  (
    await db.pool.query<{ probes: number; next_probe_at: Date | null; notified: boolean }>(
      'SELECT probes, next_probe_at, notified FROM guild_outage WHERE guild_id = $1',
      [guildId],
    )
  ).rows[0] ?? null;
const block = async (linkId: string) =>
  (
    await db.pool.query<{ blocked_reason: string | null }>(
      'SELECT blocked_reason FROM link_sync_state WHERE link_id = $1',
      [linkId],
    )
  ).rows[0]?.blocked_reason ?? null;
const notifications = async () =>
  (
    await db.pool.query<{ kind: string; detail: Record<string, unknown> }>(
      'SELECT kind, detail FROM notification ORDER BY id',
    )
  ).rows;
const counter = async (name: string) => (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
/** Ends a link's back-off now, as time would: the back-off and the delayed job that waits it out. */
const backoffOver = async (linkId: string) => {
  await db.pool.query('UPDATE link_sync_state SET backoff_until = localtimestamp WHERE link_id = $1', [linkId]);
  for (const job of await bot.producer.queue.getJobs(['delayed']))
    if ((job.data as { linkId?: string }).linkId === linkId) await job.promote();
};

describe('the bot removed from a guild (10004 / 50001)', () => {
  it('stops on the first refusal with no per-user calls, probes instead, tells the owner, and resumes without loss when the bot is back', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, ids(20));
    emulator.state.setRules(GUILD_B, { botInGuild: false });
    const before = emulator.state.stats().requests;
    await sync(link);
    await waitFor(
      () => outage(GUILD_B),
      (o) => o?.notified === true,
      { what: 'the guild outage' },
    );
    await settled();
    expect(emulator.state.stats().requests - before).toBe(1); // the one refused PUT: no call per listed user
    expect(await outcomes(db.pool, link)).toEqual({}); // nobody is marked failed: the refusal is the guild's
    expect(await notifications()).toEqual([
      { kind: 'link_paused', detail: { state: 'blocked', reason: 'bot_not_in_guild' } },
    ]);
    expect(await counter('rolelink_guilds_unavailable')).toEqual([{ labels: {}, value: 1 }]);

    // A due probe that meets the same refusal backs off further; no list write brings a call before it.
    await db.pool.query('UPDATE guild_outage SET next_probe_at = localtimestamp WHERE guild_id = $1', [GUILD_B]);
    await writeList(db.pool, link, ids(21));
    await sync(link);
    await waitFor(
      () => outage(GUILD_B),
      (o) => o?.probes === 1,
      { what: 'the first probe' },
    );
    await settled();
    expect(emulator.state.stats().requests - before).toBe(2);
    const next = (await outage(GUILD_B))!.next_probe_at!.getTime() - Date.now();
    expect(next).toBeGreaterThan(60_000); // 2 min: the intervals grow

    // The bot is back: the next probe succeeds and the whole list is applied.
    emulator.state.setRules(GUILD_B, { botInGuild: true });
    await db.pool.query('UPDATE guild_outage SET next_probe_at = localtimestamp WHERE guild_id = $1', [GUILD_B]);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_B, ROLE.linked)).toEqual(ids(20)); // the guild's 20 members (the 21st is not in it)
    expect(await outage(GUILD_B)).toBeNull();
  });

  it('once the probes are spent, the reconcile finds the bot back in its guild list and wakes the links', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, ids(5));
    emulator.state.setRules(GUILD_B, { botInGuild: false });
    await sync(link);
    await waitFor(
      () => outage(GUILD_B),
      (o) => o !== null,
      { what: 'the guild outage' },
    );
    await settled();
    await db.pool.query('UPDATE guild_outage SET probes = 8, next_probe_at = NULL WHERE guild_id = $1', [GUILD_B]);
    const before = emulator.state.stats().requests;
    await sync(link); // probes spent: the slice makes no call at all
    await settled();
    expect(emulator.state.stats().requests).toBe(before);

    emulator.state.setRules(GUILD_B, { botInGuild: true });
    await bot.producer.add('reconcile', {});
    await waitDone(link);
    expect(holders(GUILD_B, ROLE.linked)).toEqual(ids(5));
    expect(await outage(GUILD_B)).toBeNull();
  });

  it('the reconcile reports a guild the bot is out of as blocked, and opens its outage', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, ids(3));
    await sync(link);
    await waitDone(link);
    emulator.state.setRules(GUILD_B, { botInGuild: false });
    await bot.producer.add('reconcile', {});
    await waitFor(
      () => outage(GUILD_B),
      (o) => o !== null,
      { what: 'the outage opened by the reconcile' },
    );
    await waitFor(
      () => counter('rolelink_repair_blocked_total'),
      (v) => v.some((s) => s.labels.job === 'reconcile' && s.labels.reason === 'guild_unavailable' && s.value >= 1),
      { what: 'the blocked reconcile counted' },
    );
  });
});

describe('the Server Members intent off (50001 on the member listing)', () => {
  it('marks the application "cannot list members", reports the reconcile blocked, and clears it when a listing succeeds', async () => {
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, link, members.slice(0, 3));
    await sync(link);
    await waitDone(link);
    emulator.state.setRules(GUILD_A, { membersIntent: false });
    const blockedSince = async () =>
      (await db.pool.query<{ members_blocked_at: Date | null }>('SELECT members_blocked_at FROM bot_application'))
        .rows[0]?.members_blocked_at ?? null;

    await bot.producer.add('reconcile', {});
    await waitFor(blockedSince, (at) => at !== null, { what: 'the application marked' });
    const [run] = await waitFor(
      () => log.lines.filter((l) => l.message === 'reconcile run'),
      (l) => l.length > 0,
      { what: 'the reconcile line' },
    );
    expect(run).toMatchObject({ result: 'finished', blocked: 1, reason: 'members_intent', pages: 0 });
    expect(await outage(GUILD_A)).toBeNull(); // the bot is in the guild: not an outage
    expect(await counter('rolelink_members_listing_blocked')).toEqual([{ labels: {}, value: 1 }]);
    expect(
      (await counter('rolelink_repair_blocked_total')).find((s) => s.labels.reason === 'members_intent')?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(log.lines.some((l) => l.level === 'error' && String(l.message).includes('Server Members Intent'))).toBe(
      true,
    );

    emulator.state.setRules(GUILD_A, { membersIntent: true });
    await bot.producer.add('reconcile', {});
    await waitFor(blockedSince, (at) => at === null, { what: 'the mark cleared' });
  });
});

describe('a deleted account (10013)', () => {
  it('is recorded once, never retried, and the plugin hears member.not_in_guild with reason account_deleted', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await subscribeLinkEvents(db.pool, link, ['member.not_in_guild']);
    const gone = STRANGERS[0];
    emulator.state.deleteUser(gone);
    await writeList(db.pool, link, [ids(1)[0]!, gone]);
    await sync(link);
    await waitDone(link);
    expect(await outcomes(db.pool, link)).toEqual({ [ids(1)[0]!]: 'applied', [gone]: 'unknown_user' });
    const events = await db.pool.query('SELECT kind, payload FROM plugin_event WHERE link_id = $1', [link]);
    expect(events.rows).toEqual([
      { kind: 'member.not_in_guild', payload: { user_id: gone, reason: 'account_deleted' } },
    ]);
    // Permanent, so never pending: the link is up to date with the deleted account counted apart.
    const view = await showLink(testAdminDeps(db), { guildId: GUILD_B, roleId: ROLE.linked });
    expect(view.counts).toMatchObject({ listed: 2, synced: 1, to_add: 0, to_remove: 0, not_in_server: 0, deleted: 1 });
    expect(view).toMatchObject({ state: 'up_to_date', progress: { percent: 100, eta_seconds: null } });

    // Never retried: not a day later, not when the list changes, not after a reconcile.
    await db.pool.query("UPDATE applied_member SET updated_at = updated_at - interval '2 days' WHERE link_id = $1", [
      link,
    ]);
    const before = emulator.state.stats().requests;
    await writeList(db.pool, link, [ids(1)[0]!, gone, ids(2)[1]!]);
    await sync(link);
    await waitDone(link);
    expect(emulator.state.stats().requests - before).toBe(1); // the new member's PUT only
  });
});

describe('a role that became unmanageable (50013) and 2FA (60003)', () => {
  it('stops on the first refusal with the reason from the guild roles, and resumes once the role is moved back below the bot', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await subscribeLinkEvents(db.pool, link, ['link.paused', 'link.resumed']);
    await writeList(db.pool, link, ids(10));
    emulator.state.moveRole(GUILD_B, ROLE.linked, 20); // an admin drags the linked role above the bot's
    await sync(link);
    await waitFor(
      () => block(link),
      (r) => r === 'above_bot',
      { what: 'the link blocked' },
    );
    await settled();
    expect(emulator.state.stats().byStatus['403']).toBe(1);
    expect(await outcomes(db.pool, link)).toEqual({});
    expect(await notifications()).toEqual([{ kind: 'link_paused', detail: { state: 'blocked', reason: 'above_bot' } }]);
    expect(await counter('rolelink_links_blocked')).toEqual([{ labels: { reason: 'above_bot' }, value: 1 }]);

    // Still above after the back-off: re-checked from the roles (GETs), no second refused PUT.
    await backoffOver(link);
    await sync(link);
    await settled();
    expect(emulator.state.stats().byStatus['403']).toBe(1);

    emulator.state.moveRole(GUILD_B, ROLE.linked, 3);
    await backoffOver(link);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_B, ROLE.linked)).toEqual(ids(10));
    expect(await block(link)).toBeNull();
    const events = await db.pool.query('SELECT kind, payload FROM plugin_event WHERE link_id = $1 ORDER BY seq', [
      link,
    ]);
    expect(events.rows).toEqual([
      // The words of `rolelink link show` and the card (deriveLinkStatus): one vocabulary.
      { kind: 'link.paused', payload: { state: 'blocked', reason: 'above_bot' } },
      { kind: 'link.resumed', payload: { state: 'syncing', reason: null, resolved: 'above_bot' } },
    ]);
  });

  it('names a managed role as such (the bot’s own role)', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.bot });
    await writeList(db.pool, link, ids(3));
    await sync(link);
    await waitFor(
      () => block(link),
      (r) => r === 'managed',
      { what: 'the link blocked as managed' },
    );
  });

  it('60003: blocked with its own reason until the owner enables 2FA, then the first accepted call ends it', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, ids(5));
    emulator.state.setRules(GUILD_B, { mfaRequired: true, ownerMfa: false });
    await sync(link);
    await waitFor(
      () => block(link),
      (r) => r === 'mfa_required',
      { what: 'the link blocked for 2FA' },
    );
    await settled();
    expect(await outcomes(db.pool, link)).toEqual({});

    emulator.state.setRules(GUILD_B, { ownerMfa: true });
    await backoffOver(link);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_B, ROLE.linked)).toEqual(ids(5));
    expect(await block(link)).toBeNull();
  });
});
