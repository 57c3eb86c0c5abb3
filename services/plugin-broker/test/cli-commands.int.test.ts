// `rolelink config get|set`, `iframe-url` and `health` (services/cli/src/commands) through the CLI's own
// runner, against a real broker and HTTPS plugin.
import { verifyIframeToken } from '@rolelink/plugin-sdk';
import { run } from '../../cli/src/main';
import { REDIS_URL } from '../../../test/support/redis';
import { pollHealth } from '../src/health/health-poll';
import { startHarness, TEST_KEY, type Harness, type SeededLink } from './support/harness';
import { json } from './support/test-plugin';
import { toStored } from '@rolelink/db/client';

let h: Harness;
let link: SeededLink;
const saved = { ...process.env };
beforeAll(async () => {
  h = await startHarness();
  link = await h.seedLink();
  Object.assign(process.env, {
    DATABASE_URL: h.db.url,
    REDIS_URL,
    QUEUE_PREFIX: h.prefix,
    ROLELINK_SECRET_KEY: TEST_KEY.toString('hex'),
    BROKER_URL: h.brokerUrl,
    BROKER_INTERNAL_TOKEN: h.brokerToken,
  });
});
afterAll(async () => {
  process.env = saved;
  await h.close();
});

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await run(
    args,
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  return { code, out: lines.join('\n') };
}
/** What `--json` prints: an error body (`statusCode`, `message`) or the command's result. */
type CliOut = { statusCode?: number; message?: string; embed_url?: string } & Record<string, unknown>;
async function cliJson(...args: string[]): Promise<{ code: number; out: CliOut }> {
  const r = await cli(...args, '--json');
  return { code: r.code, out: JSON.parse(r.out) as CliOut };
}

const form = {
  version: 1,
  name: 'Levels',
  sections: [
    {
      title: 'Main',
      fields: [
        { type: 'number', key: 'min_level', label: 'Min', validation: { required: true, max: 10 } },
        { type: 'secret', key: 'key', label: 'Key' },
      ],
    },
  ],
  values: { min_level: 3, key: 'hunter2' },
};

describe('rolelink config / iframe-url / health', () => {
  it('config get --json prints the whole validated view; human output masks secrets', async () => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    const j = await cliJson('config', 'get', link.guildId, link.roleId, '--refresh');
    expect(j.code).toBe(0);
    expect(j.out).toMatchObject({
      ui_mode: 'schema',
      source: 'plugin',
      values: { min_level: 3, key: 'hunter2' },
      schema: { name: 'Levels' },
    });
    const human = await cli('config', 'get', link.guildId, link.roleId);
    expect(human.out).toContain('min_level: 3  (number, required)');
    expect(human.out).toContain('key: ********  (secret)');
    expect(human.out).not.toContain('hunter2');
  });

  it("config set --json '{...}' validates and submits, and refuses an invalid value with 400", async () => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    h.plugin.on('POST /config', (_req, res) => json(res, 200, { ok: true }));
    const ok = await cliJson('config', 'set', link.guildId, link.roleId, '{"min_level": 4}');
    expect(ok).toEqual({ code: 0, out: { status: 200, body: { ok: true } } });
    const bad = await cliJson('config', 'set', link.guildId, link.roleId, '{"min_level": 40}');
    expect(bad.code).toBe(1);
    expect(bad.out).toMatchObject({ statusCode: 400, message: 'Invalid configuration' });
    // The save is in the audit log (field names, the plugin's status); the refused one is not.
    const log = await cliJson('audit', link.guildId, '--action', 'config_saved');
    expect(log.out).toMatchObject({
      entries: [
        {
          action: 'config_saved',
          role_id: link.roleId,
          actor: { via: 'cli' },
          detail: { fields: ['min_level'], plugin_status: 200 },
        },
      ],
    });
  });

  it('iframe-url mints a token for the viewer, and refuses a schema-mode plugin', async () => {
    h.plugin.on('GET /config', (_req, res) =>
      json(res, 200, { version: 1, ui_mode: 'iframe', name: 'E', embed_url: 'https://127.0.0.1:9/e' }),
    );
    const out = await cliJson('iframe-url', link.guildId, link.roleId, '--viewer', '123456789012345678');
    const token = new URL(out.out.embed_url!).searchParams.get('rl_token')!;
    expect(verifyIframeToken(token, { apiToken: link.token, pluginUrl: link.pluginUrl }).sub).toBe(
      '123456789012345678',
    );
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    expect(
      (await cliJson('iframe-url', link.guildId, link.roleId, '--viewer', '123456789012345678')).out.statusCode,
    ).toBe(400);
    expect((await cliJson('iframe-url', link.guildId, link.roleId, '--viewer', 'me')).out.statusCode).toBe(400);
  });

  it('health shows unknown before the first poll and the latest status after it', async () => {
    expect((await cliJson('health', link.guildId, link.roleId)).out).toMatchObject({ status: 'unknown', latest: null });
    h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    const done = h.completed('health-check');
    await pollHealth(h.ctx, h.broker.jobs);
    await done;
    expect((await cliJson('health', link.guildId, link.roleId)).out).toMatchObject({
      status: 'healthy',
      plugin_url: link.pluginUrl,
    });
    expect((await cli('health', link.guildId, link.roleId)).out).toMatch(/status: healthy/);
  });

  it('answers 404 for an unknown link and 400 for malformed ids', async () => {
    expect((await cliJson('config', 'get', '1', '2')).out).toEqual({ statusCode: 404, message: 'Role link not found' });
    expect((await cliJson('health', 'abc', '2')).out.statusCode).toBe(400);
  });

  it('link strip-preview counts only granted members, and link delete --strip-roles without a platform to check needs --confirm-lockout', async () => {
    const other = await h.seedLink();
    const [found, granted] = ['100000000000000001', '100000000000000002'];
    await h.db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, granted) VALUES ($1, ${toStored('$2')}, 'applied', false), ($1, ${toStored('$3')}, 'applied', true)`,
      [other.linkId, found, granted],
    );
    const preview = await cliJson('link', 'strip-preview', other.guildId, other.roleId);
    expect(preview).toEqual({
      code: 0,
      out: {
        count: 1,
        sample: [{ user_id: granted, name: null }],
        lockout: [],
        lockout_checked: false,
        skipped: { not_in_server: 0, deleted: 0 },
      },
    });
    const refused = await cliJson('link', 'delete', other.guildId, other.roleId, '--strip-roles');
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatchObject({
      statusCode: 409,
      message: expect.stringMatching(/cannot be checked: no platform is configured/),
    });
    // Refused means untouched: the link is still there.
    expect((await cliJson('link', 'strip-preview', other.guildId, other.roleId)).out.count).toBe(1);
    process.env.ROLELINK_OPERATOR = 'oncall-ana';
    const deleted = await cliJson('link', 'delete', other.guildId, other.roleId, '--strip-roles', '--confirm-lockout');
    expect(deleted).toMatchObject({ code: 0, out: { deleted: true, strip_roles: true, strip_count: 1 } });
    // The audit log names the operator and the command line; a refused delete is not an action.
    const log = await cliJson('audit', other.guildId);
    expect(log.out).toMatchObject({
      entries: [
        {
          action: 'link_deleted',
          role_id: other.roleId,
          actor: { id: null, name: 'oncall-ana', via: 'cli' },
          detail: { strip_roles: true, strip_count: 1, lockout_confirmed: true },
        },
      ],
      next_before: null,
    });
    expect((await cliJson('audit', other.guildId, '--action', 'nope')).out).toMatchObject({
      statusCode: 400,
      message: 'Validation error',
    });
  });
});
