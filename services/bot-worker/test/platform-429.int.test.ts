import type { RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
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
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

// The platform's two unusual 429s, met by the worker syncing real links: the edge's ban (the whole
// application must stop) and a guild's shared limit (wait retry_after, not the bucket's shorter reset).

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
let harness: InProcessBot;
const log = memoryLogger('bot-worker', 'debug');
const edgeBans: { began: boolean; blockedMs: number }[] = [];
const members = ids(60);

beforeAll(async () => {
  harness = await startInProcessBot({
    logger: log.logger,
    concurrency: 2,
    clientEvents: { edgeBan: (i) => edgeBans.push(i) },
  });
  ({ emulator, db, bot } = harness);
});

afterAll(() => harness?.close());

beforeEach(async () => {
  await harness.reset({ guilds: [guildSeed(GUILD_A, members.length), guildSeed(GUILD_B, members.length)] });
  edgeBans.length = 0;
  log.lines.length = 0;
});

async function listedLink(guildId: string, roleId: string = ROLE.linked): Promise<string> {
  await upsertGuild(db.pool, guildId, 'premium');
  const link = await insertLink(db.pool, { guildId, roleId });
  await writeList(db.pool, link, members);
  return link;
}

const waitDone = (linkId: string) =>
  waitFor(
    () => linkRow(db.pool, linkId),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what: 'the pass to finish', timeoutMs: 60_000 },
  );

/** Every listed member holds the role and is recorded as applied: nothing lost, nothing failed. */
async function expectAllApplied(guildId: string, linkId: string, roleId: string = ROLE.linked): Promise<void> {
  expect(sorted(emulator.state.holders(guildId, roleId))).toEqual(members);
  expect(new Set(Object.values(await outcomes(db.pool, linkId)))).toEqual(new Set(['applied']));
  expect(await linkRow(db.pool, linkId)).toMatchObject({ applied_count: members.length, pending_count: 0 });
}

const yielded = (linkId: string) =>
  log.lines.filter((l) => l.message === 'sync slice' && l.linkId === linkId && l.result === 'yielded');

describe('the worker and the platform 429s without the usual headers', () => {
  it("pauses every link on the edge's ban, sends nothing while it lasts, and resumes without loss", async () => {
    const [a, b] = [await listedLink(GUILD_A), await listedLink(GUILD_B)];
    // The bot's address is banned (two 401s reach the threshold) before the sync starts.
    emulator.state.configure({ invalidThreshold: 2, banMs: 3_000 });
    for (let i = 0; i < 2; i++)
      await fetch(`${emulator.apiBase}/v10/users/@me`, {
        headers: { Authorization: 'Bot wrong', 'User-Agent': 'DiscordBot (https://github.com/rolelink/tests, 1.0.0)' },
      });
    expect(emulator.state.stats().banned).toBe(true);

    await enqueueLinkSync(bot.producer, a);
    await waitFor(
      () => edgeBans.length,
      (n) => n > 0,
      { what: "link A to meet the edge's ban" },
    );
    // Link B, another guild and bucket, starts during the block: the limiter holds it, it never reaches the edge.
    await enqueueLinkSync(bot.producer, b);
    await waitDone(a);
    await waitDone(b);

    await expectAllApplied(GUILD_A, a);
    await expectAllApplied(GUILD_B, b);
    expect(emulator.state.stats().bannedResponses).toBe(1);
    expect(edgeBans).toEqual([expect.objectContaining({ began: true })]);
    // A paused for the block (its first yield), B was held from the start.
    expect(yielded(a)[0]).toMatchObject({ reason: 'rate_limited', delay_ms: edgeBans[0]!.blockedMs });
    expect(yielded(b)[0]).toMatchObject({ reason: 'rate_limited' });
    // The ban's answer is not one of the API's invalid requests.
    expect(await harness.client.limiter.invalidCount()).toBe(0);
  });

  it("waits out a guild's shared limit (retry_after, beyond the bucket's reset) with a single 429 for all its links", async () => {
    // Two links of guild A share its role bucket; guild B's link has its own.
    const [a1, a2, b] = [await listedLink(GUILD_A), await listedLink(GUILD_A, ROLE.other), await listedLink(GUILD_B)];
    // The role bucket resets every second; the guild's shared limit lasts 3 s.
    emulator.state.limits.limitShared('roles', GUILD_A, 3_000, emulator.state.now());
    for (const link of [a1, a2, b]) await enqueueLinkSync(bot.producer, link);
    for (const link of [a1, a2, b]) await waitDone(link);

    await expectAllApplied(GUILD_A, a1);
    await expectAllApplied(GUILD_A, a2, ROLE.other);
    await expectAllApplied(GUILD_B, b);
    // Holding the bucket only for its Reset-After (≤ 1 s) lets the other link of the guild meet the
    // shared limit again.
    expect(emulator.state.stats()).toMatchObject({
      rateLimited: { user: 0, global: 0, shared: 1 },
      invalidRequests: 0,
    });
    const pauses = [...yielded(a1), ...yielded(a2)];
    expect(pauses.length).toBeGreaterThan(0);
    for (const pause of pauses) expect(pause).toMatchObject({ reason: 'rate_limited' });
    expect(Math.max(...pauses.map((p) => Number(p.delay_ms)))).toBeGreaterThan(1_500);
    // Guild B's link met no 429 (it may still wait for its own bucket: 60 changes, 50 a window).
    expect(
      log.lines.filter(
        (l) => l.message === 'sync slice' && l.linkId === b && (l.http429 as { count: number }).count > 0,
      ),
    ).toEqual([]);
  });
});
