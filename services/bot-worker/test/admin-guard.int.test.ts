import { applyRemovals } from '@rolelink/admin';
import { latestHeldChange } from '@rolelink/db/list';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { testAdminDeps } from '../../../packages/admin/test/support/deps';
import { startInProcessBot, type InProcessBot } from './support/in-process-bot';
import {
  GUILD_A,
  MEMBER_START,
  ROLE,
  ids,
  insertLink,
  linkRow,
  snapshotHolders,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from './support/harness';

const ADMINISTRATOR = 0x8n;
const MANAGE_GUILD = 0x20n;
const MANAGE_ROLES = 0x10000000n;
const OWNER = '790000000000000001';
/** Holds the linked role (Manage Server) and nothing else that gives it: the plugin's list would lock them out. */
const ONLY_SOURCE = '790000000000000002';
/** Holds the linked role and "other" (Administrator): losing the linked role leaves them an admin. */
const ALSO_ADMIN = '790000000000000003';
const list = ids(20);
const log = memoryLogger('bot-worker', 'debug');

let harness: InProcessBot;
beforeAll(async () => {
  harness = await startInProcessBot({ logger: log.logger, concurrency: 2 });
});
afterAll(() => harness?.close());

/** The story: a plugin's first list hands Manage Server to 20 members and would take it from the admin. */
function seed() {
  return {
    guilds: [
      {
        id: GUILD_A,
        ownerId: OWNER,
        roles: [
          { id: ROLE.above, name: 'above-bot', position: 10 },
          { id: ROLE.bot, name: 'rolelink', position: 5, permissions: String(MANAGE_ROLES) },
          { id: ROLE.linked, name: 'Server Staff', position: 3, permissions: String(MANAGE_GUILD) },
          { id: ROLE.other, name: 'Admins', position: 2, permissions: String(ADMINISTRATOR) },
        ],
        botRoleId: ROLE.bot,
        generateMembers: { count: list.length, startId: MEMBER_START.toString() },
        members: [
          { userId: OWNER, roles: [ROLE.linked] },
          { userId: ONLY_SOURCE, roles: [ROLE.linked] },
          { userId: ALSO_ADMIN, roles: [ROLE.linked, ROLE.other] },
        ],
      },
    ],
  };
}

describe('admin-source holds: the bot never takes a member’s only Administrator or Manage Server unasked', () => {
  it('holds that removal until the owner applies it, removes the rest at once, and never holds for the owner', async () => {
    const { db, bot, emulator } = harness;
    await harness.reset(seed());
    await upsertGuild(db.pool, GUILD_A, 'free');
    // A hand-over link: the role's holders are the baseline; the plugin's first list leaves all three out.
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked, firstList: false });
    await snapshotHolders(db.pool, link, [OWNER, ONLY_SOURCE, ALSO_ADMIN]);
    await writeList(db.pool, link, list);
    await enqueueLinkSync(bot.producer, link);
    const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));
    const settled = (r: Awaited<ReturnType<typeof linkRow>>) =>
      r.sync_done_seq === r.sync_wanted_seq && r.last_sync_at !== null;
    await waitFor(() => linkRow(db.pool, link), settled, { what: 'the first sync', progress: () => holders().length });

    expect(holders()).toEqual(sorted([...list, ONLY_SOURCE]));
    const held = await latestHeldChange(db.pool, link, 'admin_source');
    expect(held).toMatchObject({
      kind: 'admin_source',
      removals: 1,
      removalSample: [ONLY_SOURCE],
      confirmedAt: null,
      usedAt: null,
    });
    // The owner hears of it as of a large removal, and the plugin's shrink confirmation is not involved.
    const note = await db.pool.query<{ kind: string; detail: unknown }>(
      "SELECT kind, detail FROM notification WHERE kind = 'removal_held'",
    );
    expect(note.rows).toEqual([
      { kind: 'removal_held', detail: { previous: 1, next: 0, removals: 1, kind: 'admin_source' } },
    ]);
    expect(await latestHeldChange(db.pool, link, 'shrink')).toBeNull();

    // Another pass does not hold twice nor remove: the member stays held until the owner decides.
    await enqueueLinkSync(bot.producer, link);
    await waitFor(() => linkRow(db.pool, link), settled, { what: 'a second pass' });
    expect(holders()).toContain(ONLY_SOURCE);
    expect(
      (await db.pool.query("SELECT count(*)::int AS n FROM held_change WHERE kind = 'admin_source'")).rows[0],
    ).toEqual({ n: 1 });

    const deps = { ...testAdminDeps(db), requestSync: (id: string) => enqueueLinkSync(bot.producer, id) };
    const applied = await applyRemovals(deps, { guildId: GUILD_A, roleId: ROLE.linked, changeId: held!.changeId });
    expect(applied).toMatchObject({ change_id: held!.changeId, kind: 'admin_source', removals: 1 });
    await waitFor(holders, (h) => !h.includes(ONLY_SOURCE), { what: 'the applied removal', progress: (h) => h.length });
    expect(holders()).toEqual(sorted(list));
  });
});
