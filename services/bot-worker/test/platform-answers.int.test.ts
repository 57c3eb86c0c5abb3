import type { RunningEmulator } from '@rolelink/platform-emulator';
import { checkRoleForLink, stripPreview, type AdminDeps } from '@rolelink/admin';
import { botInviteUrl } from '@rolelink/domain';
import { botGuildFacts, guildMemberFacts } from '@rolelink/platform-client';
import { enqueueLinkSync } from '@rolelink/queue';
import { AppError, memoryLogger } from '@rolelink/runtime';
import type { TestDb } from '../../../test/support/db';
import type { BotWorker } from '../src/worker';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import { GUILD_A, ROLE, guildSeed, ids, insertLink, linkRow, upsertGuild, waitFor, writeList } from './support/harness';

// What admins read when the platform refuses: the platform's answer told as it is, on the real emulator.

let emulator: RunningEmulator;
let db: TestDb;
let bot: BotWorker;
let harness: InProcessBot;
const log = memoryLogger('bot-worker', 'debug');
const members = ids(20);
/** Manage Server: the strip preview checks each member the strip takes such a role from for a lock-out. */
const MANAGE_GUILD = (0x20).toString();

beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2 });
  ({ emulator, db, bot } = harness);
});
afterAll(() => harness?.close());
beforeEach(async () => {
  const seed = guildSeed(GUILD_A, members.length);
  const roles = seed.roles.map((r): { id: string; name: string; position: number; permissions?: string } =>
    r.id === ROLE.other ? { ...r, permissions: MANAGE_GUILD } : r,
  );
  await harness.reset({ guilds: [{ ...seed, roles }] });
});

const invite = (guildId: string) => botInviteUrl(`${emulator.url}/oauth2/authorize`, 'rolelink-client', guildId);
const adminDeps = (): AdminDeps => ({
  db,
  secretKey: () => Buffer.alloc(32),
  allowPrivatePluginHosts: [],
  plugin: { register: () => Promise.resolve(), deleteConfig: () => Promise.resolve() },
  requestSync: (linkId: string) => enqueueLinkSync(bot.producer, linkId),
  botFacts: botGuildFacts(harness.client.api),
  members: guildMemberFacts(harness.client.api),
  botInvite: invite,
});

async function syncedLink(roleId: string, list: string[]): Promise<string> {
  await upsertGuild(db.pool, GUILD_A, 'premium');
  const link = await insertLink(db.pool, { guildId: GUILD_A, roleId });
  await writeList(db.pool, link, list);
  await enqueueLinkSync(bot.producer, link);
  await waitFor(
    () => linkRow(db.pool, link),
    (r) => r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null,
    { what: 'the first sync' },
  );
  return link;
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('the strip preview', () => {
  it('skips a deleted account (10013) and a member who left (10007), says how many, and checks the rest', async () => {
    await syncedLink(ROLE.other, members.slice(0, 10));
    const [deleted, left] = [members[0]!, members[1]!];
    emulator.state.deleteUser(deleted);
    emulator.state.removeMember(GUILD_A, left);

    const preview = await stripPreview(adminDeps(), { guildId: GUILD_A, roleId: ROLE.other });
    expect(preview.skipped).toEqual({ not_in_server: 1, deleted: 1 });
    expect(preview.count).toBe(8);
    expect(preview.sample.map((m) => m.user_id)).toEqual(members.slice(2, 5));
    // The role is each present member's only Manage Server: all eight would lose it, none of the gone two.
    expect(preview.lockout_checked).toBe(true);
    expect(preview.lockout.map((m) => m.user_id)).toEqual(members.slice(2, 10));
  });

  it('with the bot removed answers 409 bot_not_in_guild with the invite, never "try again"', async () => {
    await syncedLink(ROLE.linked, members.slice(0, 3));
    emulator.state.setRules(GUILD_A, { botInGuild: false });
    const err = await refusal(stripPreview(adminDeps(), { guildId: GUILD_A, roleId: ROLE.linked }));
    expect(err).toMatchObject({ status: 409, code: 'bot_not_in_guild' });
    expect(err.message).toContain('the bot is not in this server');
    expect(err.message).toContain(invite(GUILD_A));
    expect(err.message).not.toMatch(/try again|did not answer/);
  });
});

describe('link creation', () => {
  it('on a guild the bot is not in answers with the meaning of 10004 and the invite', async () => {
    emulator.state.setRules(GUILD_A, { botInGuild: false });
    const err = await refusal(checkRoleForLink(adminDeps(), GUILD_A, ROLE.linked, {}));
    expect(err).toMatchObject({ status: 409, code: 'bot_not_in_guild' });
    expect(err.message).toMatch(/^Whether the bot can manage this role cannot be checked: the chat platform answered/);
    expect(err.message).toContain(`Someone with Manage Server in that server adds the bot with ${invite(GUILD_A)}`);
    expect(err.message).not.toMatch(/try again|did not answer/);
  });

  it('when the platform does not answer at all says so, and to try again', async () => {
    const deps = { ...adminDeps(), botFacts: () => Promise.reject(new TypeError('fetch failed')) };
    const err = await refusal(checkRoleForLink(deps, GUILD_A, ROLE.linked, {}));
    expect(err).toMatchObject({ status: 502, code: 'platform_unavailable' });
    expect(err.message).toContain('did not answer (fetch failed); try again in a moment');
  });
});
