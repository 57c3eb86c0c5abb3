import type { RunningEmulator } from '@rolelink/platform-emulator';
import { readRoleHolders, type PlatformClient } from '@rolelink/platform-client';
import { createLink, showLink } from '@rolelink/admin';
import { enqueueLinkSync } from '@rolelink/queue';
import { createMetrics, memoryLogger, type LogLine } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { testAdminDeps } from '../../../packages/admin/test/support/deps';
import { applyRange } from '../src/sync/apply-range';
import { toStored } from '@rolelink/db/client';
import { diffRange } from '@rolelink/db/sync';
import { loadLink } from '../src/sync/link-context';
import type { BotWorker } from '../src/worker';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
  GUILD_B,
  ROLE,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  outcomes,
  snapshotHolders,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

let emulator: RunningEmulator;
let db: TestDb;
let client: PlatformClient;
let bot: BotWorker;
// Debug and up, in the services' format: the log-line tests read what operators would.
const log = memoryLogger('bot-worker', 'debug');
const metrics = createMetrics('bot-worker', { defaultMetrics: false });

const members = ids(160);
const holders = (guild: string, role: string) => sorted(emulator.state.holders(guild, role));

let harness: InProcessBot;
beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 4, metrics });
  ({ emulator, db, client, bot } = harness);
});

afterAll(() => harness?.close());

beforeEach(async () => {
  emulator.state.reset();
  emulator.state.seed({ guilds: [guildSeed(GUILD_A, members.length), guildSeed(GUILD_B, 20)] });
  await db.pool.query('TRUNCATE guild, role_link, link_user, applied_member, link_sync_state CASCADE');
  log.lines.length = 0;
});

const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const waitDone = (linkId: string, what = 'the pass to finish') =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );
const sliceLines = (linkId: string) => log.lines.filter((l) => l.message === 'sync slice' && l.linkId === linkId);
const waitSliceLines = (linkId: string, count: number) =>
  waitFor(
    () => sliceLines(linkId),
    (lines: LogLine[]) => lines.length >= count,
    { what: `${count} sync slice line(s)` },
  );
const waitJob = (jobId: string | undefined, what = 'the job to finish') =>
  waitFor(
    () => bot.producer.queue.getJob(jobId!),
    (j) => j?.finishedOn !== undefined,
    { what },
  );

describe('sync engine against the platform emulator', () => {
  it('ends a list as exactly the lowest 100 holders on the free plan and holds the rest', async () => {
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    const list = members.slice(0, 150).reverse();
    await writeList(db.pool, link, list);
    await sync(link);

    await waitFor(
      () => holders(GUILD_A, ROLE.linked),
      (h) => h.length >= 100,
      { what: '100 holders' },
    );
    await waitDone(link);
    expect(holders(GUILD_A, ROLE.linked)).toEqual(sorted(list).slice(0, 100));
    const row = await linkRow(db.pool, link);
    expect(row).toMatchObject({ applied_count: 100, pending_count: 0 });
    expect(row.sync_rate_per_sec).toBeGreaterThan(0);
  });

  it('activates held users by themselves when the guild upgrades', async () => {
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    const list = members.slice(0, 130);
    await writeList(db.pool, link, list);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_A, ROLE.linked)).toEqual(list.slice(0, 100));

    await upsertGuild(db.pool, GUILD_A, 'premium'); // a plan change enqueues a sync; the list is not re-sent
    await sync(link);
    await waitFor(
      () => holders(GUILD_A, ROLE.linked),
      (h) => h.length === 130,
      { what: 'all 130 holders' },
    );
    expect(holders(GUILD_A, ROLE.linked)).toEqual(list);
    await waitFor(
      () => linkRow(db.pool, link),
      (r) => r.applied_count === 130 && r.pending_count === 0,
      { what: 'exact counts' },
    );
  });

  it('leaves a paused link untouched and syncs it once the guild has a slot for it again', async () => {
    await upsertGuild(db.pool, GUILD_A, 'free');
    const first = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.other });
    await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.third });
    const paused = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, first, members.slice(0, 5));
    await writeList(db.pool, paused, members.slice(10, 20));
    await sync(first);
    const pausedJob = await sync(paused);
    await waitDone(first);
    await waitJob(pausedJob, 'the paused link to be answered');
    expect(await linkRow(db.pool, paused)).toMatchObject({ sync_done_seq: '1' });
    expect(holders(GUILD_A, ROLE.other)).toEqual(members.slice(0, 5));
    expect(holders(GUILD_A, ROLE.linked)).toEqual([]);
    expect(await outcomes(db.pool, paused)).toEqual({});

    await upsertGuild(db.pool, GUILD_A, 'free', 1); // a paid slot resumes the third link
    await sync(paused);
    await waitFor(
      () => holders(GUILD_A, ROLE.linked),
      (h) => h.length === 10,
      { what: 'resumed link synced' },
    );
    expect(holders(GUILD_A, ROLE.linked)).toEqual(members.slice(10, 20));
  });

  it('changes nothing for a hand-over link before its first list, then removes holders missing from that list', async () => {
    const current = members.slice(0, 6);
    for (const u of current) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, {
      guildId: GUILD_A,
      roleId: ROLE.linked,
      memberMode: 'handover',
      firstList: false,
    });
    await snapshotHolders(db.pool, link, current);
    await waitJob(await sync(link), 'the waiting hand-over link to be answered');
    expect(holders(GUILD_A, ROLE.linked)).toEqual(current);
    const before = emulator.state.stats().roleChangesApplied;
    expect(before).toMatchObject({ added: 0, removed: 0 });

    const first = [...members.slice(3, 6), ...members.slice(50, 52)];
    await writeList(db.pool, link, first);
    await sync(link);
    await waitFor(
      () => holders(GUILD_A, ROLE.linked),
      (h) => h.join() === sorted(first).join(),
      { what: 'the first list applied' },
    );
    expect(emulator.state.stats().roleChangesApplied).toMatchObject({ added: 2, removed: 3 });
    // Outcomes are recorded after the platform's answers, so the holders can be right a moment earlier.
    await waitFor(
      () => outcomes(db.pool, link),
      (o) => o[members[0]!] === 'removed' && o[members[50]!] === 'applied',
      { what: 'the hand-over outcomes' },
    );
  });

  it('counts removals as pending while a walk makes them, not only missing additions', async () => {
    const current = members.slice(0, 120);
    for (const u of current) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, {
      guildId: GUILD_A,
      roleId: ROLE.linked,
      memberMode: 'handover',
      firstList: false,
    });
    await snapshotHolders(db.pool, link, current);
    // Two of the 120 holders stay: 118 removals and nothing to add, over several slices of 40 calls.
    await writeList(db.pool, link, members.slice(0, 2));
    await sync(link);
    // More than 2 is removals: additions alone can never be more than the list's 2 members.
    const during = await waitFor(
      () => linkRow(db.pool, link),
      (r) => r.pending_count > 2,
      { what: 'the removals still to make counted as pending' },
    );
    expect(during.pending_count).toBeLessThanOrEqual(118);
    await waitFor(
      () => holders(GUILD_A, ROLE.linked),
      (h) => h.length === 2,
      { what: 'the 118 removals made' },
    );
    await waitDone(link);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 2, pending_count: 0 });
  });

  it('counts the members who already hold the role as synced after a hand-over, from the first list on', async () => {
    const current = members.slice(0, 100);
    for (const u of current) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    await upsertGuild(db.pool, GUILD_A, 'premium');
    // Created as the dashboard and the CLI create it: the role's holders read from the platform and recorded.
    const deps = { ...testAdminDeps(db), holders: (g: string, r: string) => readRoleHolders(client.api, g, r) };
    const created = await createLink(deps, {
      guildId: GUILD_A,
      roleId: ROLE.linked,
      pluginUrl: 'https://plugin.example.com',
      askedMembers: true,
      keepMembers: false,
    });
    expect(created).toMatchObject({ member_mode: 'handover', existing_members: 100 });
    const counts = async () => {
      const c = (await showLink(deps, { guildId: GUILD_A, roleId: ROLE.linked })).counts;
      return { user_count: c.listed, synced_count: c.synced, pending_count: c.to_add + c.to_remove };
    };
    // Synced is who holds the role now (docs/api.md "A link's counts"): the 100 holders, before any list.
    expect(await counts()).toMatchObject({ user_count: 0, synced_count: 100, pending_count: 0 });

    // The plugin's first list names the 100 holders and 60 members who do not hold the role yet. Before
    // the bot has run, the holders already count as synced and only the 60 additions as pending.
    await writeList(db.pool, created.link_id, members);
    expect(await counts()).toMatchObject({ user_count: 160, synced_count: 100, pending_count: 60 });
    // While the walk makes the additions (slices of 40 calls), synced never drops below the holders.
    await sync(created.link_id);
    const seen: { synced: number; pending: number }[] = [];
    await waitFor(
      async () => {
        const c = await counts();
        seen.push({ synced: c.synced_count, pending: c.pending_count });
        return c;
      },
      (c) => c.synced_count === 160 && c.pending_count === 0,
      { what: 'the first list synced' },
    );
    for (const s of seen) expect([s.synced >= 100, s.synced + s.pending]).toEqual([true, 160]);
    expect(emulator.state.stats().roleChangesApplied).toMatchObject({ added: 60, removed: 0 });
  });

  it('keeps current members in keep mode without a single role change on the first sync', async () => {
    const current = members.slice(20, 25);
    for (const u of current) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, {
      guildId: GUILD_A,
      roleId: ROLE.linked,
      memberMode: 'keep',
      firstList: false,
    });
    await writeList(db.pool, link, current); // keep mode: holders copied into the list (and the record) before register
    await snapshotHolders(db.pool, link, current);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_A, ROLE.linked)).toEqual(current);
    expect(emulator.state.stats().roleChangesApplied).toMatchObject({ added: 0, removed: 0 });
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 5, pending_count: 0 });
  });

  it('re-checks the live list right before each removal and keeps a user who was added back', async () => {
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    const [keepMe, dropMe] = [members[30]!, members[31]!];
    for (const u of [keepMe, dropMe]) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    await snapshotHolders(db.pool, link, [keepMe, dropMe]);
    await writeList(db.pool, link, []);

    const ctx = await loadLink(db.pool, link);
    const rows = await diffRange(db.pool, link, 0n, 9223372036854775807n, null);
    expect(rows.map((r) => [r.userId, r.desired])).toEqual([
      [keepMe, false],
      [dropMe, false],
    ]);
    // The plugin adds keepMe back after the diff was read, before the worker reaches the removal.
    await db.pool.query(`INSERT INTO link_user (link_id, user_id) VALUES ($1, ${toStored('$2')})`, [link, keepMe]);
    const c = await db.pool.connect();
    try {
      const refusal = { db: db.pool, client: c, api: client.api, link: ctx!, blockPending: false };
      await applyRange(
        {
          client: c,
          api: client.api,
          link: ctx!,
          cutoff: null,
          cause: 'full sync',
          exhausted: () => false,
          spend: () => undefined,
          refusal,
        },
        rows,
      );
    } finally {
      c.release();
    }
    expect(holders(GUILD_A, ROLE.linked)).toEqual([keepMe]);
    expect(await outcomes(db.pool, link)).toEqual({ [keepMe]: 'applied', [dropMe]: 'removed' });
  });

  it('records users who are not in the guild and does not retry them on the next pass', async () => {
    await upsertGuild(db.pool, GUILD_B, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    const stranger = '899999999999999999';
    await writeList(db.pool, link, [members[0]!, stranger]);
    await sync(link);
    await waitDone(link);
    expect(await outcomes(db.pool, link)).toEqual({ [members[0]!]: 'applied', [stranger]: 'not_in_guild' });
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 1, pending_count: 1 });

    const requests = emulator.state.stats().requests;
    await writeList(db.pool, link, [members[0]!, stranger, members[1]!]);
    await sync(link);
    await waitFor(
      () => holders(GUILD_B, ROLE.linked),
      (h) => h.length === 2,
      { what: 'the new user' },
    );
    await waitDone(link);
    expect(emulator.state.stats().requests - requests).toBe(1); // only the new user's PUT, no retry of the stranger
  });

  it('stops a link whose role is above the bot on the first refusal, says why, and makes no per-user failures', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.above });
    await writeList(db.pool, link, ids(10));
    await sync(link);
    // The reason comes from the guild's roles (packages/domain role-access.ts), and the link backs off.
    await waitFor(
      async () =>
        (
          await db.pool.query<{ blocked_reason: string | null; backoff_until: Date | null }>(
            'SELECT blocked_reason, backoff_until FROM link_sync_state WHERE link_id = $1',
            [link],
          )
        ).rows[0] ?? null,
      (r) => r?.blocked_reason === 'above_bot' && r.backoff_until !== null,
      { what: 'the link blocked as above_bot' },
    );
    expect(emulator.state.stats().byStatus['403']).toBe(1);
    expect(await outcomes(db.pool, link)).toEqual({}); // the refusal is the link's, not ten users'
    await sync(link); // a new write does not make the worker hammer the role during the back-off
    await waitFor(
      () => bot.producer.queue.getJobCounts('active', 'waiting'),
      (c) => c.active === 0 && c.waiting === 0,
      { what: 'the queue to settle' },
    );
    expect(emulator.state.stats().byStatus['403']).toBe(1);
    expect(holders(GUILD_B, ROLE.above)).toEqual([]);
  });

  it('repairs hand edits and retries users who joined the guild when the reconcile runs', async () => {
    await upsertGuild(db.pool, GUILD_B, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    const joiner = '899999999999999998';
    const list = [...members.slice(0, 4), joiner];
    await writeList(db.pool, link, list);
    await sync(link);
    await waitDone(link);
    expect(holders(GUILD_B, ROLE.linked)).toEqual(members.slice(0, 4));

    emulator.state.setMemberRoles(GUILD_B, members[1]!, []); // a moderator takes the role away
    emulator.state.setMemberRoles(GUILD_B, members[9]!, [ROLE.linked]); // and gives it to someone unlisted
    emulator.state.addMember(GUILD_B, joiner); // the stranger joins
    await bot.producer.add('reconcile', {});
    await waitFor(
      () => holders(GUILD_B, ROLE.linked),
      (h) => h.join() === sorted(list).join(),
      { what: 'drift repaired', timeoutMs: 20_000 },
    );
    // As in the hand-over test: the outcomes are recorded a moment after the holders change.
    const repaired = { [members[1]!]: 'applied', [members[9]!]: 'removed', [joiner]: 'applied' };
    await waitFor(
      () => outcomes(db.pool, link),
      (o) => Object.entries(repaired).every(([u, s]) => o[u] === s),
      { what: 'the repair outcomes' },
    );
    // The run's line follows the syncs it enqueued, which may finish first.
    const [run] = await waitFor(
      () => log.lines.filter((l) => l.message === 'reconcile run'),
      (l) => l.length > 0,
      { what: 'the reconcile line' },
    );
    expect(run).toMatchObject({
      level: 'info',
      result: 'finished',
      guilds: 1,
      drifted: 1,
      pages: 1,
      jobId: expect.any(String),
      duration_ms: expect.any(Number),
    });
  });

  it('writes one info line for a sync slice with the link, guild, adds, removes and failures by outcome', async () => {
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    const holding = members.slice(0, 3);
    for (const u of holding) emulator.state.setMemberRoles(GUILD_B, u, [ROLE.linked]);
    await snapshotHolders(db.pool, link, holding);
    const stranger = '899999999999999997';
    await writeList(db.pool, link, [...members.slice(2, 7), stranger]);
    await sync(link);

    const [line] = await waitSliceLines(link, 1);
    expect(line).toEqual({
      level: 'info',
      message: 'sync slice',
      service: 'bot-worker',
      timestamp: expect.any(String),
      jobId: expect.any(String),
      linkId: link,
      guildId: GUILD_B,
      roleId: ROLE.linked,
      result: 'finished',
      adds: 4,
      removes: 2,
      failures: { not_in_guild: 1, missing_permission: 0, failed: 0 },
      http429: { count: 0, retry_after_ms: 0 },
      pass: { calls: 7, adds: 4, duration_ms: expect.any(Number) },
      duration_ms: expect.any(Number),
    });
    expect(sliceLines(link)).toHaveLength(1);
  });

  it('names the API request that queued a sync in every slice line of its pass, continuations included', async () => {
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, link, members.slice(0, 120));
    await enqueueLinkSync(bot.producer, link, 'req-7f3a.put:1');
    await waitDone(link);
    const lines = sliceLines(link);
    // 120 adds at 40 calls a slice: the pass continues in jobs the worker queued itself.
    expect(lines.some((l) => l.result === 'continues')).toBe(true);
    expect(lines.map((l) => l.requestId)).toEqual(lines.map(() => 'req-7f3a.put:1'));
  });

  it('reports how far behind the links are at scrape time: links behind, pending changes, the oldest unapplied change', async () => {
    await db.pool.query('TRUNCATE list_change');
    await upsertGuild(db.pool, GUILD_A, 'premium');
    await upsertGuild(db.pool, GUILD_B, 'premium');
    const big = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    const small = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    const current = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.other });
    // No job is queued for them: the figures stay as written. big: 250,000 pending, its oldest unapplied
    // change 600 s old, and an older entry at its done sequence that waits only for compaction.
    await db.pool.query(
      `UPDATE role_link SET sync_wanted_seq = 3, sync_done_seq = CASE WHEN id = $3 THEN 3 ELSE 1 END,
              pending_count = CASE id WHEN $1 THEN 250000 WHEN $2 THEN 10 ELSE 0 END WHERE id IN ($1, $2, $3)`,
      [big, small, current],
    );
    await db.pool.query(
      `INSERT INTO list_change (link_id, seq, user_id, op, created_at) VALUES
         ($1, 1, 0, 'walk', now() - interval '5000 seconds'), ($1, 2, 0, 'walk', now() - interval '600 seconds'), ($1, 3, 5, 'add', now() - interval '30 seconds'),
         ($2, 2, 7, 'add', now() - interval '60 seconds')`,
      [big, small],
    );
    const text = await metrics.registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('rolelink_sync_links_behind')).toBe(2);
    expect(value('rolelink_sync_pending_changes')).toBe(250_010);
    expect(value('rolelink_sync_link_pending_changes_max')).toBe(250_000);
    const oldest = value('rolelink_sync_oldest_unapplied_seconds');
    expect(oldest).toBeGreaterThanOrEqual(600);
    expect(oldest).toBeLessThan(5000);
  });

  it('writes a slice that changed nothing at debug', async () => {
    await upsertGuild(db.pool, GUILD_B, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, members.slice(0, 2));
    await sync(link);
    await waitSliceLines(link, 1);
    await waitDone(link);
    await sync(link);
    const [first, second] = await waitSliceLines(link, 2);
    expect(first).toMatchObject({ level: 'info', adds: 2, result: 'finished' });
    // The second job finds the journal drained: no walk, no pass figures.
    expect(second).toMatchObject({ level: 'debug', adds: 0, removes: 0, result: 'finished' });
    expect(second).not.toHaveProperty('pass');
  });

  it('completes the job of a link that was deleted', async () => {
    await upsertGuild(db.pool, GUILD_B, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_B, roleId: ROLE.linked });
    await writeList(db.pool, link, members.slice(0, 3));
    await db.pool.query('DELETE FROM role_link WHERE id = $1', [link]);
    const job = await waitJob(await sync(link));
    expect(job?.returnvalue).toBe('done');
    expect(holders(GUILD_B, ROLE.linked)).toEqual([]);
  });
});
