// `rolelink trigger` makes the platform kinds real on the local stack: the whole system on one database and
// queue prefix (the broker's harness with an SDK plugin, the bot worker in this process with its drift poll,
// the platform emulator), the CLI pointed at the emulator as `bash scripts/start.sh` points it. Each kind is
// made through the emulator's control API, recorded by the worker and delivered by the broker (seq > 0).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLUGIN_EVENT_KINDS, type PluginEvent } from '@rolelink/contracts';
import { configForm, fields, MemoryTokenStore, pluginMiddleware, section } from '@rolelink/plugin-sdk';
import { silentLogger } from '@rolelink/runtime';
import { sweepEvents } from '../../../services/plugin-broker/src/events/event-sweep';
import { startHarness, type Harness } from '../../../services/plugin-broker/test/support/harness';
import { GUILD_B, ROLE, guildSeed, ids, linkRow, writeList } from '../../bot-worker/test/support/harness';
import { startInProcessBot, type InProcessBot } from '../../bot-worker/test/support/in-process-bot';
import { until } from '../../../test/support/until';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';

const form = configForm({ name: 'Trigger plugin', sections: [section('S', [fields.text('name', 'Name')])] });
const store = new MemoryTokenStore();
const received: PluginEvent[] = [];
const app = pluginMiddleware({
  store,
  getConfig: () => form.response({ name: '' }),
  events: Object.fromEntries(PLUGIN_EVENT_KINDS.map((k) => [k, (e: PluginEvent) => void received.push(e)])),
});

let h: Harness;
let bot: InProcessBot;
let restoreEnv: () => void;
let caFile: string;
let linkId: string;
const [g, r] = [GUILD_B, ROLE.linked];
const LISTED = ids(4);

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(
    args,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  h = await startHarness({ pluginApp: (req, res) => app(req, res), events: { baseMs: 20, maxMs: 80 } });
  bot = await startInProcessBot({
    logger: silentLogger(),
    concurrency: 2,
    drift: { everyMs: 1_000, floorPerSecond: 5, maxPerSecond: 10 },
    shared: { db: h.db, prefix: h.prefix },
  });
  bot.emulator.state.seed({ guilds: [guildSeed(g, 10)] });
  restoreEnv = useCliEnv(h);
  process.env.PLATFORM_API_URL = bot.emulator.apiBase;
  process.env.PLATFORM_BOT_TOKEN = bot.emulator.botToken;
  caFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'trigger-ca-')), 'cert.pem');
  writeFileSync(caFile, h.plugin.ca);

  const created = await cli('link', 'create', g, r, '--plugin-url', h.plugin.url, '--json');
  expect(created).toMatchObject({ code: 0 });
  linkId = (JSON.parse(created.out) as { link_id: string }).link_id;
  // The plugin's list (its own push is the API's, not under test here), synced to the platform.
  await writeList(h.db.pool, linkId, LISTED);
  expect(await cli('link', 'resync', g, r, '--json')).toMatchObject({ code: 0 });
  await until(
    () => linkRow(h.db.pool, linkId),
    (row) => row.sync_done_seq === row.sync_wanted_seq && row.applied_count === LISTED.length,
    'the list applied on the platform',
    60_000,
    100,
  );
}, 120_000);
afterAll(async () => {
  restoreEnv?.();
  await bot?.close();
  await h?.close();
});

describe('rolelink trigger on the local stack (the platform emulator)', () => {
  it.each(['link.paused', 'link.resumed', 'member.role_restored', 'member.not_in_guild'] as const)(
    '%s is made on the platform, recorded and delivered to the plugin',
    async (kind) => {
      const from = received.length;
      const done = await cli('trigger', kind, g, r, '--ca', caFile, '--json');
      expect(done).toMatchObject({ code: 0, out: expect.stringContaining('"via":"platform"') });
      const result = JSON.parse(done.out) as { via: string; did: string; recorded: { seq: number; kind: string }[] };
      expect(result.via).toBe('platform');
      expect(result.did).toMatch(/emulator/);
      const recorded = result.recorded.find((e) => e.kind === kind)!;
      expect(recorded.seq).toBeGreaterThan(0);
      const got = await until(
        async () => {
          await sweepEvents(h.ctx, h.broker.jobs);
          return received.slice(from).filter((e) => e.type === kind && e.seq === recorded.seq);
        },
        (events) => events.length > 0,
        `the recorded ${kind} at the plugin`,
        60_000,
        100,
      );
      expect(got[0]).toMatchObject({ guild_id: g, role_id: r });
      if (kind === 'link.paused') {
        expect(got[0]!.data).toEqual({ state: 'blocked', reason: 'bot_not_in_guild' });
        expect(bot.emulator.state.rules(g).botInGuild).toBe(false);
      }
      if (kind === 'link.resumed') {
        expect(got[0]!.data).toMatchObject({ resolved: 'bot_not_in_guild', reason: null });
        expect(bot.emulator.state.rules(g).botInGuild).toBe(true);
      }
      if (kind === 'member.role_restored') {
        expect(got[0]!.data).toMatchObject({ source: 'drift' });
        expect(LISTED).toContain((got[0]!.data as { user_id: string }).user_id);
        // Drift repair put the role back: every listed user holds it again.
        await until(
          () => bot.emulator.state.holders(g, r),
          (holders) => LISTED.every((u) => holders.includes(u)),
          'the role back on the platform',
          60_000,
          100,
        );
      }
      if (kind === 'member.not_in_guild') {
        const user = (got[0]!.data as { user_id: string }).user_id;
        expect(got[0]!.data).toEqual({ user_id: user, reason: 'not_a_member' });
        expect(LISTED).toContain(user);
        // Back in the guild, without the role until the bot's next retry.
        expect(bot.emulator.state.memberRoles(g, user)).not.toContain(r);
      }
    },
    240_000,
  );

  it('falls back to the signed sample, and says why, when PLATFORM_API_URL is not the emulator', async () => {
    const saved = process.env.PLATFORM_API_URL;
    process.env.PLATFORM_API_URL = `${h.brokerUrl}/api`;
    try {
      const done = await cli('trigger', 'link.paused', g, r, '--ca', caFile, '--json');
      expect(done).toMatchObject({ code: 0 });
      const result = JSON.parse(done.out) as { via: string; did: string; sent: { id: string } };
      expect(result.via).toBe('sample');
      expect(result.did).toMatch(
        /is not the platform emulator \(no control API at http:\/\/127\.0\.0\.1:\d+\/_emulator\)/,
      );
      expect(bot.emulator.state.rules(g).botInGuild).toBe(true);
    } finally {
      process.env.PLATFORM_API_URL = saved;
    }
  });
});
