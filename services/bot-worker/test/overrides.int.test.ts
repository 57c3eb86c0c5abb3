import type { RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { inTransaction } from '@rolelink/db/client';
import { addUser, removeUser } from '@rolelink/db/list';
import { applyOverrideChange, type OverrideChange } from '@rolelink/db/overrides';
import type { TestDb } from '../../../test/support/db';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
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
import type { BotWorker } from '../src/worker';

// Admin overrides per link (docs/sync-engine.md, "Admin overrides") against the
// platform emulator: target set = (list ∖ never) ∪ always, "always" members taking synced places first.

const members = ids(200);
const log = memoryLogger('bot-worker', 'debug');
const LIMIT = 100_000;

let harness: InProcessBot;
let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;

beforeAll(async () => {
  // The drift poll runs (every second); the full reconcile only when a test asks for it.
  harness = await startInProcessBot({
    logger: log.logger,
    concurrency: 2,
    reconcileEveryMs: 24 * 3_600_000,
    drift: { everyMs: 1_000, floorPerSecond: 5, maxPerSecond: 10 },
  });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());

beforeEach(async () => {
  emulator.state.reset();
  emulator.state.seed({ guilds: [guildSeed(GUILD_A, members.length), guildSeed(GUILD_B, members.length)] });
  // The drift poll's tick runs meanwhile and may take the same locks in another order: retry a deadlock.
  for (let attempt = 0; ; attempt++) {
    try {
      await db.pool.query(
        'TRUNCATE guild, role_link, link_user, applied_member, link_sync_state, list_change, member_change, drift_poll, link_override CASCADE',
      );
      break;
    } catch (err) {
      if (attempt >= 5 || (err as { code?: string }).code !== '40P01') throw err;
    }
  }
  log.lines.length = 0;
});

const holders = (guild = GUILD_A) => sorted(emulator.state.holders(guild, ROLE.linked));
const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const waitDone = (linkId: string, what = 'the outbox to be answered') =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );
const override = async (linkId: string, change: Partial<OverrideChange>) => {
  const r = await inTransaction(db.pool, (c) =>
    applyOverrideChange(c, linkId, { always: [], never: [], remove: [], ...change }),
  );
  expect(r.kind).toBe('ok');
  await sync(linkId);
};
/** Walks finished so far, counted once no sync job is queued or running (the reconcile's scheduled job stays delayed). */
async function walks(linkId: string): Promise<number> {
  await waitFor(
    () => bot.producer.queue.getJobCounts('active', 'waiting', 'prioritized'),
    (c) => Object.values(c).every((n) => n === 0),
    { what: 'an idle queue' },
  );
  return log.lines.filter((l) => l.message === 'sync slice' && l.linkId === linkId && l.pass !== undefined).length;
}

async function syncedLink(guild: string, list: string[], before?: Partial<OverrideChange>): Promise<string> {
  await upsertGuild(db.pool, guild, 'free'); // synced limit 100
  const link = await insertLink(db.pool, { guildId: guild, roleId: ROLE.linked });
  await writeList(db.pool, link, list);
  if (before)
    await inTransaction(db.pool, (c) => applyOverrideChange(c, link, { always: [], never: [], remove: [], ...before }));
  await sync(link);
  await waitDone(link, 'the first sync');
  return link;
}

describe('admin overrides in the sync engine', () => {
  it('"always keep" members hold the role over the limit and take synced places first; removing them gives the places back (journal, no walk)', async () => {
    const list = members.slice(0, 130); // lowest 100 synced, 30 held
    const link = await syncedLink(GUILD_A, list);
    expect(holders()).toEqual(list.slice(0, 100));

    // A held listed member and an unlisted one: both hold the role, and the two highest synced ids make room.
    const [held, unlisted] = [members[120]!, members[150]!];
    await override(link, { always: [held, unlisted] });
    await waitFor(holders, (h) => h.includes(held) && h.includes(unlisted) && !h.includes(members[99]!), {
      what: 'the always members granted',
    });
    await waitDone(link);
    expect(holders()).toEqual(sorted([...list.slice(0, 98), held, unlisted]));
    expect(holders()).toHaveLength(100);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 100, pending_count: 0 });

    // Taken off the "always" list: the unlisted member loses the role, the listed held one is held again.
    await override(link, { remove: [held, unlisted] });
    await waitFor(holders, (h) => !h.includes(unlisted) && h.includes(members[99]!), { what: 'the places given back' });
    await waitDone(link);
    expect(holders()).toEqual(list.slice(0, 100));
    expect(await walks(link)).toBe(1);
  });

  it('"never give" takes the role from a listed lowest id and promotes the next listed one; the plugin re-listing them changes nothing', async () => {
    const list = members.slice(0, 110);
    const link = await syncedLink(GUILD_A, list);
    const lowest = members[0]!;
    await override(link, { never: [lowest] });
    await waitFor(holders, (h) => !h.includes(lowest) && h.includes(members[100]!), {
      what: 'the never member removed, the next promoted',
    });
    await waitDone(link);
    expect(holders()).toEqual(list.slice(1, 101));

    // The plugin removes and re-adds them (journal): still never given. A listed member removed below the
    // boundary still promotes the next held one, counting around the never member.
    await removeUser(db.pool, link, lowest);
    await addUser(db.pool, link, lowest, LIMIT);
    await removeUser(db.pool, link, members[5]!);
    await sync(link);
    await waitFor(holders, (h) => h.includes(members[101]!), { what: 'member 101 promoted' });
    await waitDone(link);
    expect(holders()).toEqual(sorted(list.filter((u) => u !== lowest && u !== members[5]).slice(0, 100)));
    expect(holders()).not.toContain(lowest);

    // Taken off the list: the never member is the lowest listed id again and gets the role back.
    await override(link, { remove: [lowest] });
    await waitFor(holders, (h) => h.includes(lowest) && !h.includes(members[101]!), {
      what: 'the never member restored',
    });
    await waitDone(link);
    expect(await walks(link)).toBe(1);
  });

  it('a journal batch writes exact counts against the target set: a "never" on a listed member, an "always" on an unlisted one', async () => {
    const list = members.slice(0, 10); // under the limit: every listed member synced
    const link = await syncedLink(GUILD_A, list);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 10, pending_count: 0 });

    // Never: 9 to hold, 9 hold. (Measured against the list's 10, this read "1 change to make".)
    await override(link, { never: [members[4]!] });
    await waitFor(holders, (h) => !h.includes(members[4]!), { what: 'the never member removed' });
    await waitDone(link);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 9, pending_count: 0 });

    // Always on an unlisted member who is not in the guild (and the never lifted): 11 to hold, 10 hold, 1 to
    // make, as a walk says (measured against the list, 0).
    const stranger = '899999999999999999';
    await override(link, { remove: [members[4]!], always: [stranger] });
    await waitFor(holders, (h) => h.includes(members[4]!), { what: 'the never member restored' });
    await waitDone(link);
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 10, pending_count: 1 });
    expect(await walks(link)).toBe(1);
  });

  it('a first sync (a full walk) applies overrides set before it', async () => {
    const list = members.slice(0, 105);
    const link = await syncedLink(GUILD_A, list, { always: [members[180]!], never: [members[2]!, members[3]!] });
    expect(holders()).toEqual(
      sorted([...list.filter((u) => u !== members[2] && u !== members[3]).slice(0, 99), members[180]!]),
    );
    expect(await linkRow(db.pool, link)).toMatchObject({ applied_count: 100, pending_count: 0 });
  });

  it('drift repair (audit-log poll) puts back a hand-removed "always" member and takes a hand grant from a "never" member', async () => {
    const list = members.slice(0, 10);
    const [keep, banned] = [members[50]!, members[4]!];
    const link = await syncedLink(GUILD_A, list, { always: [keep], never: [banned] });
    expect(holders()).toEqual(sorted([...list.filter((u) => u !== banned), keep]));
    await waitFor(
      async () =>
        (
          await db.pool.query<{ last: string | null }>(
            'SELECT last_entry_id::text AS last FROM drift_poll WHERE guild_id = $1',
            [GUILD_A],
          )
        ).rows[0]?.last,
      (v) => v != null,
      { what: 'a first read of the audit log' },
    );

    emulator.state.setMemberRoles(GUILD_A, keep, []);
    emulator.state.setMemberRoles(GUILD_A, banned, [ROLE.linked]);
    await waitFor(holders, (h) => h.includes(keep) && !h.includes(banned), { what: 'both hand edits repaired' });
    await waitDone(link);
    expect(holders()).toEqual(sorted([...list.filter((u) => u !== banned), keep]));
  });

  it('the full reconcile repairs the same drift where the audit log cannot be read', async () => {
    emulator.state.guild(GUILD_B)!.botRole.permissions &= ~0x80n; // no View Audit Log: only the reconcile sees hand edits
    const list = members.slice(0, 10);
    const [keep, banned] = [members[60]!, members[6]!];
    const link = await syncedLink(GUILD_B, list, { always: [keep], never: [banned] });
    emulator.state.setMemberRoles(GUILD_B, keep, []);
    emulator.state.setMemberRoles(GUILD_B, banned, [ROLE.linked]);
    await bot.producer.add('reconcile', {});
    await waitFor(
      () => holders(GUILD_B),
      (h) => h.includes(keep) && !h.includes(banned),
      { what: 'the reconcile repaired both', timeoutMs: 20_000 },
    );
    await waitDone(link);
    expect(holders(GUILD_B)).toEqual(sorted([...list.filter((u) => u !== banned), keep]));
  });
});
