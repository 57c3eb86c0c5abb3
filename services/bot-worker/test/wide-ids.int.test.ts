import type { RunningEmulator } from '@rolelink/platform-emulator';
import { addUser, journalGuildChange, removeUser } from '@rolelink/db/list';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import { MIXED_WIDTH_IDS, TWO_POW_63 } from '../../../test/support/user-id-cases';
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

// User ids of 17 to 20 digits, on both sides of 2^63: they are stored as id - 2^63, and the
// lowest-N rule must still pick the numerically lowest. A signed or text order would sync the 20-digit
// ids first (stored as-is they do not even fit), so the boundary below is placed above 2^63 on purpose.
// 13 edge ids plus 97 consecutive ids just above 2^63: on the free plan (100 synced) the boundary falls
// between 2^63 + 93 and 2^63 + 94, and the 10 held are the 5 highest of those, 9999999999999999999 and
// the four 20-digit ids.

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
const log = memoryLogger('bot-worker', 'warn');

const list = [...MIXED_WIDTH_IDS, ...ids(97, TWO_POW_63 + 2n)];
const ascending = sorted(list);
const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));

let harness: InProcessBot;
beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2 });
  ({ emulator, db, bot } = harness);
});

afterAll(() => harness?.close());

beforeEach(async () => {
  await harness.reset({ guilds: [{ ...guildSeed(GUILD_A, 0), members: list.map((userId) => ({ userId })) }] });
});

const waitDone = (linkId: string, what: string) =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what },
  );

describe('ids of 17 to 20 digits across 2^63', () => {
  it('syncs exactly the lowest 100 by numeric value, then keeps the boundary exact through the journal', async () => {
    expect(ascending.slice(100)).toEqual([
      ...ids(5, TWO_POW_63 + 94n),
      '9999999999999999999',
      '10000000000000000000',
      '10000000000000000001',
      '18446744073709551614',
      '18446744073709551615',
    ]);
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    await writeList(db.pool, link, [...list].reverse());
    await enqueueLinkSync(bot.producer, link);
    await waitDone(link, 'the first walk');
    expect(holders()).toEqual(ascending.slice(0, 100));

    // A removal of the lowest (17-digit) id promotes the lowest held id, 2^63 + 94 (the journal and the cutoff).
    await removeUser(db.pool, link, '10000000000000000');
    await enqueueLinkSync(bot.producer, link);
    await waitFor(holders, (h) => h.includes((TWO_POW_63 + 94n).toString()), { what: '2^63 + 94 promoted' });
    await waitDone(link, 'the removal');
    expect(holders()).toEqual(ascending.slice(1, 101));

    // 2^64 - 1 out and back in stays held (it is the highest); the 17-digit id back in demotes 2^63 + 94.
    await removeUser(db.pool, link, '18446744073709551615');
    await addUser(db.pool, link, '18446744073709551615', 30_000_000);
    await addUser(db.pool, link, '10000000000000000', 30_000_000);
    await enqueueLinkSync(bot.producer, link);
    await waitFor(holders, (h) => h.includes('10000000000000000') && !h.includes((TWO_POW_63 + 94n).toString()), {
      what: 'the 17-digit id back',
    });
    await waitDone(link, 'the adds');
    expect(holders()).toEqual(ascending.slice(0, 100));
    expect(holders()).not.toContain('18446744073709551615');

    // Premium: everyone, the 20-digit ids included, exactly as listed.
    await upsertGuild(db.pool, GUILD_A, 'premium');
    await journalGuildChange(db.pool, GUILD_A);
    await enqueueLinkSync(bot.producer, link);
    await waitFor(holders, (h) => h.length === list.length, { what: 'all holders' });
    expect(holders()).toEqual(ascending);
  });
});
