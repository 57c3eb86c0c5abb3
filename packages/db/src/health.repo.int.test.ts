import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink } from '../../../test/support/fixtures';
import { countLinksByHealth, HEALTH_HISTORY_PER_PLUGIN, healthHistory, pluginUrlsAfter, pruneUnusedPlugins, recordHealth } from './health.repo';
import { findPluginLink, findPluginUrl } from './links.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const PLUGIN = 'https://plugin.example.com';

describe('health repository (plugin_health_check)', () => {
  it('keeps the newest checks of a plugin, newest first', async () => {
    for (let i = 0; i < HEALTH_HISTORY_PER_PLUGIN + 3; i++) {
      await recordHealth(db.prisma, 'https://busy.example.com', { status: 'healthy', latencyMs: i, detail: { i } }, new Date());
    }
    const history = await healthHistory(db.prisma, 'https://busy.example.com');
    expect(history).toHaveLength(HEALTH_HISTORY_PER_PLUGIN);
    expect(history[0]!.latencyMs).toBe(HEALTH_HISTORY_PER_PLUGIN + 2);
    expect(history[0]!.detail).toEqual({ i: HEALTH_HISTORY_PER_PLUGIN + 2 });
  });

  it("counts links by their plugin's latest check and forgets plugins no link uses", async () => {
    await seedLink(db);
    await seedLink(db);
    await recordHealth(db.prisma, PLUGIN, { status: 'healthy', latencyMs: 5, detail: {} }, new Date());
    await recordHealth(db.prisma, PLUGIN, { status: 'degraded', latencyMs: 9, detail: {} }, new Date());
    expect(await countLinksByHealth(db.prisma)).toEqual({ degraded: 2 });
    expect(await pruneUnusedPlugins(db.prisma)).toBe(HEALTH_HISTORY_PER_PLUGIN);
    expect(await healthHistory(db.prisma, 'https://busy.example.com')).toEqual([]);
    expect(await healthHistory(db.prisma, PLUGIN)).toHaveLength(2);
  });

  it('pages through the distinct plugin URLs of the links', async () => {
    expect(await pluginUrlsAfter(db.prisma, '', 10)).toEqual([PLUGIN]);
    expect(await pluginUrlsAfter(db.prisma, PLUGIN, 10)).toEqual([]);
  });
});

describe("links repository: the broker's reads", () => {
  it("reads a link's plugin and token ciphertext, or null when it is gone", async () => {
    const { linkId, guildId, roleId } = await seedLink(db);
    const link = await findPluginLink(db.prisma, linkId);
    expect(link).toMatchObject({ id: BigInt(linkId), guildId: BigInt(guildId), roleId: BigInt(roleId), pluginUrl: PLUGIN });
    expect(link!.tokenCiphertext.length).toBeGreaterThan(0);
    expect(await findPluginUrl(db.prisma, linkId)).toBe(PLUGIN);
    expect(await findPluginLink(db.prisma, '999999999')).toBeNull();
    expect(await findPluginUrl(db.prisma, '999999999')).toBeNull();
  });
});
