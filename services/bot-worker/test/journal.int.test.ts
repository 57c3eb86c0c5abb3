import type { RunningEmulator } from '@rolelink/platform-emulator';
import { addUser, journalGuildChange, removeUser, replaceList } from '@rolelink/db/list';
import { MEMBER_HISTORY_KEEP, memberHistory, recordMemberChange } from '@rolelink/db/sync';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { deleteLink, stripPreview } from '@rolelink/admin';
import { guildMemberFacts } from '@rolelink/platform-client';
import type { TestDb } from '../../../test/support/db';
import type { BotWorker } from '../src/worker';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
  ROLE,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  snapshotHolders,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
const log = memoryLogger('bot-worker', 'debug');

const members = ids(200);
const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));
const LIMIT = 100_000;

let harness: InProcessBot;
beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2 });
  ({ emulator, db, bot } = harness);
});

afterAll(() => harness?.close());

beforeEach(async () => {
  await harness.reset({ guilds: [guildSeed(GUILD_A, members.length)] });
  log.lines.length = 0;
});

const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const waitDone = (linkId: string, what = 'the outbox to be answered') =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );
const journalRows = async (linkId: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM list_change WHERE link_id = $1', [linkId]))
    .rows[0]!.n;
/** Walks finished so far, counted once no job is queued or running (a slice's line is written before its job completes). */
async function walks(linkId: string): Promise<number> {
  await waitFor(
    () => bot.producer.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized'),
    (c) => Object.values(c).every((n) => n === 0),
    { what: 'an idle queue' },
  );
  return log.lines.filter((l) => l.message === 'sync slice' && l.linkId === linkId && l.pass !== undefined).length;
}

/** A link whose first list is on the platform (its first sync is a walk; everything after is the journal's). */
async function syncedLink(plan: 'free' | 'premium', list: string[]): Promise<string> {
  await upsertGuild(db.pool, GUILD_A, plan);
  const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
  await writeList(db.pool, link, list);
  await sync(link);
  await waitDone(link, 'the first walk');
  return link;
}

describe('change journal', () => {
  it('applies a single add and a single removal without walking the list, and compacts what it consumed', async () => {
    const link = await syncedLink('premium', members.slice(0, 50));
    const walksAfterFirst = await walks(link);
    expect(walksAfterFirst).toBe(1);

    expect(await addUser(db.pool, link, members[120]!, LIMIT)).toMatchObject({ added: true });
    expect(await removeUser(db.pool, link, members[3]!)).toMatchObject({ removed: true });
    expect(await journalRows(link)).toBe(2);
    await sync(link);
    await waitFor(holders, (h) => h.includes(members[120]!) && !h.includes(members[3]!), {
      what: 'the add and the removal on the platform',
    });
    await waitDone(link);

    expect(holders()).toEqual(sorted([...members.slice(0, 50).filter((u) => u !== members[3]), members[120]!]));
    expect(await walks(link)).toBe(walksAfterFirst);
    // Moderators see why in the guild's audit log: the list's plugin, and whether a single change or a walk moved it.
    const reasons = emulator.state.audit
      .list(GUILD_A)
      .filter((e) => e.userId === members[120] || e.userId === members[0])
      .map((e) => [e.userId, e.action, e.reason]);
    expect(reasons).toEqual([
      [members[0], 'member_role_add', 'Role link: plugin.example.com list (full sync)'],
      [members[120], 'member_role_add', 'Role link: plugin.example.com list (list change)'],
    ]);
    // Each member's bounded change history says the same, newest first.
    expect((await memberHistory(db.pool, link, members[3]!)).map((h) => [h.action, h.outcome, h.cause])).toEqual([
      ['remove', 'removed', 'list change'],
      ['add', 'applied', 'full sync'],
    ]);
    expect((await memberHistory(db.pool, link, members[120]!)).map((h) => [h.action, h.outcome, h.cause])).toEqual([
      ['add', 'applied', 'list change'],
    ]);
    expect(await journalRows(link)).toBe(0);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 50, pending_count: 0 });
  });

  it('counts a removal answered 10013 (account deleted) or 10007 (member left) out of the synced count, as a 204', async () => {
    const link = await syncedLink('premium', members.slice(0, 50));
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 50, pending_count: 0 });
    const [deleted, left, dropped] = [members[5]!, members[6]!, members[7]!];
    emulator.state.deleteUser(deleted); // DELETE …/roles answers 404 10013 for them
    emulator.state.removeMember(GUILD_A, left); // … and 404 10007 for them
    // The plugin removes both, and one member who still holds the role (answered 204).
    for (const u of [deleted, left, dropped])
      expect(await removeUser(db.pool, link, u)).toMatchObject({ removed: true });
    await sync(link);
    await waitFor(holders, (h) => !h.includes(dropped), { what: 'the 204 removal on the platform' });
    await waitDone(link);
    expect((await memberHistory(db.pool, link, deleted))[0]).toMatchObject({
      action: 'remove',
      outcome: 'unknown_user',
    });
    expect((await memberHistory(db.pool, link, left))[0]).toMatchObject({ action: 'remove', outcome: 'not_in_guild' });
    expect(holders()).toHaveLength(47);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 47, pending_count: 0 });
    expect(await walks(link)).toBe(1); // the journal's count, not a walk's recount
  });

  it('keeps the synced counts true when a journal batch stops part-way (the slice budget, or the platform says wait)', async () => {
    // 20 of the first list already hold the role (a link re-created over a role in use): the first walk
    // applies them without a call, so its own add count is not the applied count.
    for (const u of members.slice(0, 20)) emulator.state.setMemberRoles(GUILD_A, u, [ROLE.linked]);
    const link = await syncedLink('premium', members.slice(0, 50));
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 50, pending_count: 0 });
    // 60 adds in one batch, above the harness's 40 calls per slice: the batch stops after 40 and the next
    // slice finishes it. The counts admins read must follow what reached the platform, not the last walk.
    for (const u of members.slice(100, 160)) await addUser(db.pool, link, u, LIMIT);
    await sync(link);
    await waitFor(holders, (h) => h.length === 110, { what: '110 holders' });
    await waitDone(link);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 110, pending_count: 0 });
    // Sequences 2 to 61 cross 9 → 10: read in text order they looked non-contiguous and forced a walk.
    expect(await walks(link)).toBe(1);
  });

  it('keeps the synced counts true when a batch of removals stops part-way', async () => {
    const link = await syncedLink('premium', members.slice(0, 50));
    // 45 removals in one batch, above the harness's 40 calls per slice: the batch stops and the next slice
    // finishes it. A stopped batch must not write a walk's interim counts, which ignore removals.
    for (const u of members.slice(5, 50)) await removeUser(db.pool, link, u);
    await sync(link);
    await waitFor(holders, (h) => h.length === 5, { what: '5 holders' });
    await waitDone(link);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 5, pending_count: 0 });
    expect(await walks(link)).toBe(1);
  });

  it('keeps the lowest-N rule exact: a removal below the boundary promotes the next held id, an add below it demotes the highest synced id', async () => {
    const list = members.slice(0, 130); // free plan: the lowest 100 are synced, 30 held
    const link = await syncedLink('free', list);
    expect(holders()).toEqual(list.slice(0, 100));

    await removeUser(db.pool, link, members[10]!);
    await sync(link);
    await waitFor(holders, (h) => h.includes(members[100]!) && !h.includes(members[10]!), {
      what: 'member 100 promoted',
    });
    await waitDone(link);
    expect(holders()).toEqual(sorted(list.filter((u) => u !== members[10]).slice(0, 100)));

    // An add of an id above the boundary is held; re-adding member 10 (below it) demotes member 100 again.
    await addUser(db.pool, link, members[150]!, LIMIT);
    await addUser(db.pool, link, members[10]!, LIMIT);
    await sync(link);
    await waitFor(holders, (h) => h.includes(members[10]!) && !h.includes(members[100]!), {
      what: 'member 100 demoted',
    });
    await waitDone(link);
    expect(holders()).toEqual(list.slice(0, 100));
    expect(holders()).not.toContain(members[150]);
    expect(await walks(link)).toBe(1);
  });

  it('walks again only when a plan change moves the synced boundary (downgrade, then upgrade)', async () => {
    const list = members.slice(0, 130);
    const link = await syncedLink('premium', list);
    expect(holders()).toEqual(list);

    await upsertGuild(db.pool, GUILD_A, 'free');
    await journalGuildChange(db.pool, GUILD_A);
    await sync(link);
    await waitFor(holders, (h) => h.length === 100, { what: 'the downgrade to 100 holders' });
    await waitDone(link);
    expect(holders()).toEqual(list.slice(0, 100));
    expect(await walks(link)).toBe(2);

    await upsertGuild(db.pool, GUILD_A, 'premium');
    await journalGuildChange(db.pool, GUILD_A);
    await sync(link);
    await waitFor(holders, (h) => h.length === 130, { what: 'the upgrade to 130 holders' });
    await waitDone(link);
    expect(await walks(link)).toBe(3);

    // Slots changed but the boundary did not: the `link` entry is consumed without a walk.
    await journalGuildChange(db.pool, GUILD_A);
    await sync(link);
    await waitDone(link);
    expect(await walks(link)).toBe(3);
    expect(await journalRows(link)).toBe(0);
  });

  it('journals a small replace per user and applies exactly its diff', async () => {
    const link = await syncedLink('premium', members.slice(0, 60));
    const next = [...members.slice(5, 60), ...members.slice(150, 155)]; // 5 removed, 5 added
    const out = await replaceList(db.pool, { linkId: link, source: { kind: 'ids', ids: next }, storedLimit: LIMIT });
    expect(out).toMatchObject({ kind: 'replaced', userCount: 60 });
    const ops = (
      await db.pool.query<{ op: string; n: number }>(
        'SELECT op, count(*)::int AS n FROM list_change WHERE link_id = $1 GROUP BY op ORDER BY op',
        [link],
      )
    ).rows;
    expect(ops).toEqual([
      { op: 'add', n: 5 },
      { op: 'remove', n: 5 },
    ]);

    await sync(link);
    await waitFor(holders, (h) => h.includes(members[154]!) && !h.includes(members[0]!), {
      what: 'the replace on the platform',
    });
    await waitDone(link);
    expect(holders()).toEqual(sorted(next));
    expect(await walks(link)).toBe(1);
  });

  it('applies a fresh add ahead of the backlog of a first sync in the same guild', async () => {
    const many = ids(2_000);
    emulator.state.reset();
    emulator.state.seed({ guilds: [guildSeed(GUILD_A, many.length)] });
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, link, many.slice(0, 1_500)); // 30 s of adds at the bucket's 50/s
    await sync(link);
    await waitFor(holders, (h) => h.length >= 50, { what: 'the first sync under way' });

    const fresh = many[1_999]!; // the highest id: the walk would reach it last
    await addUser(db.pool, link, fresh, LIMIT);
    await sync(link);
    const seen = await waitFor(holders, (h) => h.includes(fresh), {
      what: 'the fresh add on the platform',
      timeoutMs: 10_000,
    });
    expect(seen.length).toBeLessThan(1_000);
    // Stop the backlog before the next test: the link's next slice finds it disabled and ends.
    await db.pool.query('UPDATE role_link SET enabled = false WHERE id = $1', [link]);
    await walks(link);
  });

  it("keeps each member's change history bounded", async () => {
    await upsertGuild(db.pool, GUILD_A, 'premium');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    for (let i = 0; i < MEMBER_HISTORY_KEEP + 5; i++) {
      await recordMemberChange(db.pool, {
        linkId: link,
        userId: members[0]!,
        action: i % 2 ? 'remove' : 'add',
        outcome: 'applied',
        cause: `c${i}`,
      });
    }
    const history = await memberHistory(db.pool, link, members[0]!);
    expect(history.map((h) => h.cause)).toEqual(
      Array.from({ length: MEMBER_HISTORY_KEEP }, (_, i) => `c${MEMBER_HISTORY_KEEP + 4 - i}`),
    );
    const { rows } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM member_change WHERE link_id = $1',
      [link],
    );
    expect(rows[0]!.n).toBe(MEMBER_HISTORY_KEEP);
  });

  it('leaves the roles on link delete by default, and strips only what the link granted with --strip-roles', async () => {
    const deleted: string[] = [];
    const admin = {
      db,
      secretKey: () => Buffer.alloc(32),
      allowPrivatePluginHosts: [],
      plugin: { register: () => Promise.resolve(), deleteConfig: () => Promise.resolve(void deleted.push('config')) },
      requestSync: (linkId: string) => sync(linkId),
      members: guildMemberFacts(harness.client.api),
    };
    const kept = await syncedLink('premium', members.slice(0, 10));
    await upsertGuild(db.pool, GUILD_A, 'premium');
    // Two members held the role before the link (a hand edit, or an earlier link): link creation records
    // them as holders. They are on the new list, so the bot never calls the platform for them.
    const before = [members[5]!, members[6]!];
    for (const u of before)
      emulator.state.setMemberRoles(GUILD_A, u, [...emulator.state.memberRoles(GUILD_A, u)!, ROLE.other]);
    const other = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.other });
    await snapshotHolders(db.pool, other, before);
    await writeList(db.pool, other, members.slice(5, 15));
    await sync(other);
    await waitDone(other);
    const otherHolders = () => sorted(emulator.state.holders(GUILD_A, ROLE.other));
    expect(otherHolders()).toEqual(members.slice(5, 15));

    await deleteLink(admin, { guildId: GUILD_A, roleId: ROLE.linked });
    await walks(kept);
    expect(holders()).toEqual(members.slice(0, 10)); // the documented default: roles stay

    const preview = await stripPreview(admin, { guildId: GUILD_A, roleId: ROLE.other });
    expect(preview).toMatchObject({ count: 8, lockout: [], lockout_checked: true });
    expect(preview.sample.map((m) => m.user_id)).toEqual(members.slice(7, 12));
    expect(await deleteLink(admin, { guildId: GUILD_A, roleId: ROLE.other, stripRoles: true })).toMatchObject({
      strip_roles: true,
      strip_count: 8,
    });
    await waitFor(
      async () =>
        (
          await db.pool.query<{ done: boolean }>(
            'SELECT stripped_at IS NOT NULL AS done FROM link_purge WHERE link_id = $1',
            [other],
          )
        ).rows[0]?.done,
      (done) => done === true,
      { what: 'the strip recorded as done' },
    );
    // Only the eight the link's add calls gave the role to lose it; the earlier holders keep it.
    expect(otherHolders()).toEqual(before);
    expect(holders()).toEqual(members.slice(0, 10)); // another link's role is untouched
    expect(deleted).toEqual(['config', 'config']);
  });

  it('walks when a write bypassed the journal (a sequence without entries)', async () => {
    const link = await syncedLink('premium', members.slice(0, 20));
    await writeList(db.pool, link, members.slice(10, 30)); // raw SQL: bumps the sequence, journals nothing
    await sync(link);
    await waitFor(holders, (h) => h.length === 20 && h.includes(members[29]!), {
      what: 'the raw write on the platform',
    });
    await waitDone(link);
    expect(holders()).toEqual(members.slice(10, 30));
    expect(await walks(link)).toBe(2);
  });
});
