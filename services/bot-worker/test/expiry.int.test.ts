import type { RunningEmulator } from '@rolelink/platform-emulator';
import { addUser, removeExpired } from '@rolelink/db/list';
import { toStored } from '@rolelink/db/client';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
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
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

// A membership that expires leaves the platform as a plugin's removal does: the sweeper's write (db
// removeExpired) is journaled like a DELETE, so the worker applies it per user and keeps lowest-N exact.

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
const log = memoryLogger('bot-worker', 'debug');
const members = ids(200);
const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));

let harness: InProcessBot;
beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2 });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());
beforeEach(() => harness.reset({ guilds: [guildSeed(GUILD_A, members.length)] }));

const sync = (linkId: string) => enqueueLinkSync(bot.producer, linkId);
const waitDone = (linkId: string, what: string) =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );
/** Walks finished so far, counted once no job is queued or running (as journal.int.test.ts counts them). */
async function walks(linkId: string): Promise<number> {
  await waitFor(
    () => bot.producer.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized'),
    (c) => Object.values(c).every((n) => n === 0),
    { what: 'an idle queue' },
  );
  return log.lines.filter((l) => l.message === 'sync slice' && l.linkId === linkId && l.pass !== undefined).length;
}

describe('expired memberships on the platform', () => {
  it('an expiry below the synced boundary takes the role away and promotes the next lowest held id, without a walk', async () => {
    const list = members.slice(0, 130); // free plan: the lowest 100 synced, 30 held
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, link, list);
    await sync(link);
    await waitDone(link, 'the first walk');
    expect(holders()).toEqual(list.slice(0, 100));
    const walksBefore = await walks(link);
    expect(walksBefore).toBe(1);

    // Due in the past by SQL (no waiting on the clock): members 10 and 20.
    await db.pool.query(
      `UPDATE link_user SET expires_at = now() - interval '1 second' WHERE link_id = $1 AND user_id IN (${toStored('$2')}, ${toStored('$3')})`,
      [link, members[10], members[20]],
    );
    const removed = await removeExpired(db.pool, link, new Date());
    expect(sorted(removed.userIds)).toEqual(sorted([members[10]!, members[20]!]));
    await sync(link);
    await waitFor(holders, (h) => h.includes(members[100]!) && h.includes(members[101]!) && !h.includes(members[10]!), {
      what: 'members 100 and 101 promoted',
    });
    await waitDone(link, 'the expiry applied');
    expect(holders()).toEqual(sorted(list.filter((u) => u !== members[10] && u !== members[20]).slice(0, 100)));
    expect(await walks(link)).toBe(walksBefore);
    expect(
      (await db.pool.query<{ n: number }>('SELECT user_count AS n FROM role_link WHERE id = $1', [link])).rows[0]!.n,
    ).toBe(128);

    // A re-add after expiry is an ordinary add again (permanent here).
    expect(await addUser(db.pool, link, members[10]!, 100_000)).toMatchObject({ added: true });
  });
});
