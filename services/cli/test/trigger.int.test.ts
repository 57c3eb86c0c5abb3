// `rolelink trigger` makes every documented event kind reach a plugin built on the SDK: the real PostgreSQL,
// Redis and plugin broker of the broker's harness, the SDK's pluginMiddleware on HTTPS verifying each
// signature, and the CLI's own `link create` so the plugin opts in through /register as it would.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLUGIN_EVENT_KINDS, type PluginEvent } from '@rolelink/contracts';
import { configForm, fields, MemoryTokenStore, pluginMiddleware, section } from '@rolelink/plugin-sdk';
import { sweepEvents } from '../../../services/plugin-broker/src/events/event-sweep';
import { startHarness, type Harness } from '../../../services/plugin-broker/test/support/harness';
import { snowflake } from '../../../test/support/fixtures';
import { until } from '../../../test/support/until';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';

const form = configForm({ name: 'Trigger plugin', sections: [section('S', [fields.text('name', 'Name')])] });
const store = new MemoryTokenStore();
/** Every event the SDK verified and handed to a handler, in arrival order. */
const received: PluginEvent[] = [];
const app = pluginMiddleware({
  store,
  getConfig: () => form.response({ name: '' }),
  events: Object.fromEntries(PLUGIN_EVENT_KINDS.map((k) => [k, (e: PluginEvent) => void received.push(e)])),
});

let h: Harness;
let restoreEnv: () => void;
let caFile: string;

beforeAll(async () => {
  h = await startHarness({ pluginApp: (req, res) => app(req, res), events: { baseMs: 20, maxMs: 80 } });
  restoreEnv = useCliEnv(h);
  caFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'trigger-ca-')), 'cert.pem');
  writeFileSync(caFile, h.plugin.ca);
});
afterAll(async () => {
  restoreEnv();
  await h.close();
});

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

describe('rolelink trigger', () => {
  const [g, r] = [snowflake(), snowflake()];

  beforeAll(async () => {
    const created = await cli('link', 'create', g, r, '--plugin-url', h.plugin.url, '--json');
    expect(created).toMatchObject({ code: 0 });
  });

  it.each([...PLUGIN_EVENT_KINDS])('%s reaches the plugin, verified by the SDK', async (kind) => {
    const from = received.length;
    const done = await cli('trigger', kind, g, r, '--ca', caFile, '--json');
    expect(done.code).toBe(0);
    const result = JSON.parse(done.out) as { kind: string; via: string; did: string; sent?: { id: string } };
    expect(result.kind).toBe(kind);
    // Recorded events wait for the broker's sweep (every few seconds in a stack): run it while waiting.
    const got = await until(
      async () => {
        if (result.via === 'admin') await sweepEvents(h.ctx, h.broker.jobs);
        return received.slice(from).filter((e) => e.type === kind && e.guild_id === g && e.role_id === r);
      },
      (events) => events.length > 0,
      `a ${kind} event at the plugin`,
      30_000,
      100,
    );
    if (result.via === 'sample') {
      expect(got[0]).toMatchObject({ id: result.sent!.id, seq: 0 });
      expect(result.did).toMatch(/signed sample/);
    } else expect(got[0]!.seq).toBeGreaterThan(0);
  });

  it('says which kinds exist, and refuses an unknown kind, an unknown link and a kind the plugin did not ask for in the error shape', async () => {
    const help = await cli('trigger', '--help');
    expect(help.code).toBe(0);
    for (const kind of PLUGIN_EVENT_KINDS)
      expect(help.out).toMatch(new RegExp(`^  ${kind.replace('.', '\\.')} +\\S`, 'm'));

    const unknown = await cli('trigger', 'member.left', g, r, '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.out)).toMatchObject({ statusCode: 400, errors: [{ field: 'kind' }] });

    const noLink = await cli('trigger', 'link.disabled', g, snowflake());
    expect(noLink.code).toBe(1);
    expect(noLink.err).toMatch(/^error: Role link not found$/m);

    // A link whose plugin never opted in (no /register answer listed kinds).
    const quiet = await h.seedLink();
    const notAsked = await cli('trigger', 'removal.held', quiet.guildId, quiet.roleId, '--json');
    expect(notAsked.code).toBe(1);
    expect(JSON.parse(notAsked.out)).toMatchObject({
      statusCode: 409,
      message:
        "The plugin did not ask for removal.held events, so the service would not send one: list it in the plugin's /register answer or /health report (the SDK does for every kind with a handler); it asks for none",
    });

    // A sample to a self-signed plugin without --ca: the 502 says to pass it.
    const untrusted = await cli('trigger', 'removal.held', g, r);
    expect(untrusted.code).toBe(1);
    expect(untrusted.err).toMatch(
      /^error: Failed to send the sample removal\.held event to the plugin\n {2}.*--ca <file\.pem>/m,
    );
  });
});
