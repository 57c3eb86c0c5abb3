// `rolelink config set` and `iframe-url` as their help describes them: the configuration JSON is the
// argument after <roleId> (with or without the --json output switch), and iframe-url's --viewer is optional.
import { verifyIframeToken } from '@rolelink/plugin-sdk';
import { startHarness, TEST_KEY, type Harness, type SeededLink } from '../../plugin-broker/test/support/harness';
import { json } from '../../plugin-broker/test/support/test-plugin';
import { REDIS_URL } from '../../../test/support/redis';
import { run } from '../src/main';

let h: Harness;
let link: SeededLink;
const saved = { ...process.env };
beforeAll(async () => {
  h = await startHarness();
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

const form = {
  version: 1,
  name: 'Demo',
  sections: [
    {
      title: 'Main',
      fields: [{ type: 'number', key: 'member_count', label: 'Members', validation: { required: true, max: 100 } }],
    },
  ],
  values: { member_count: 20 },
};
const iframe = { version: 1, ui_mode: 'iframe', name: 'Embedded', embed_url: 'https://127.0.0.1:9/embed?lang=en' };

// Each describe has its own link: the broker caches a link's form structure (schema or iframe) for 5 minutes.
describe('rolelink config set', () => {
  beforeAll(async () => {
    link = await h.seedLink();
  });
  beforeEach(() => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    h.plugin.on('POST /config', (_req, res) => json(res, 200, { ok: true }));
  });

  it('takes the configuration JSON as the argument after <roleId>, with human or JSON output', async () => {
    const posted = h.plugin.next('POST /config');
    const human = await cli('config', 'set', link.guildId, link.roleId, '{"member_count": 30}');
    expect(human).toMatchObject({ code: 0, out: expect.stringContaining('saved: true') });
    expect(JSON.parse((await posted).body)).toMatchObject({ config: { member_count: 30 } });
    // --json only switches the answer to JSON, wherever it stands.
    for (const args of [
      ['--json', '{"member_count": 31}'],
      ['{"member_count": 31}', '--json'],
    ]) {
      const res = await cli('config', 'set', link.guildId, link.roleId, ...args);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.out)).toEqual({ status: 200, body: { ok: true } });
    }
  });

  it('explains how to pass the configuration when it is missing or glued to --json', async () => {
    const missing = await cli('config', 'set', link.guildId, link.roleId, '--json');
    expect(missing.code).toBe(1);
    expect((JSON.parse(missing.out) as { message: string }).message).toBe(
      `usage: rolelink config set <guildId> <roleId> <configJson> (e.g. rolelink config set <guildId> <roleId> '{"member_count": 30}')`,
    );
    const glued = await cli('config', 'set', link.guildId, link.roleId, '--json={"member_count": 30}');
    expect(glued.code).toBe(1);
    expect(glued.err).toMatch(
      /--json takes no value: it only makes the answer JSON\. A configuration is the argument after <roleId>/,
    );
    const notObject = await cli('config', 'set', link.guildId, link.roleId, '[1]', '--json');
    expect(JSON.parse(notObject.out)).toMatchObject({
      statusCode: 400,
      errors: [{ field: 'config', message: 'must be a JSON object' }],
    });
  });

  it('shows the worked example in rolelink help', async () => {
    const help = await cli('help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('config set <guildId> <roleId> <configJson>\n');
    expect(help.out).toContain(`e.g. rolelink config set <guildId> <roleId> '{"member_count": 30}'`);
    expect(help.out).toContain('iframe-url <guildId> <roleId> [--viewer <value>]');
  });
});

describe('rolelink iframe-url', () => {
  beforeAll(async () => {
    link = await h.seedLink();
  });
  beforeEach(() => h.plugin.on('GET /config', (_req, res) => json(res, 200, iframe)));

  it('without --viewer prints the bare embed URL and says why it has no rl_token', async () => {
    const human = await cli('iframe-url', link.guildId, link.roleId);
    expect(human.code).toBe(0);
    expect(human.out).toContain('embed_url: https://127.0.0.1:9/embed?lang=en\n');
    expect(human.out).toMatch(/note: no rl_token: .* pass --viewer <userId> to mint one/);
    const res = await cli('iframe-url', link.guildId, link.roleId, '--json');
    // 'cache': the structure fetched by the call above, within the 5-minute cache.
    expect(JSON.parse(res.out)).toEqual({
      embed_url: 'https://127.0.0.1:9/embed?lang=en',
      expires_in: null,
      viewer: null,
      source: 'cache',
    });
  });

  it('with --viewer mints a five-minute rl_token for that user, keeping the query', async () => {
    const res = await cli('iframe-url', link.guildId, link.roleId, '--viewer', '123456789012345678', '--json');
    const out = JSON.parse(res.out) as { embed_url: string };
    expect(out).toMatchObject({ expires_in: 300, viewer: '123456789012345678' });
    const url = new URL(out.embed_url);
    expect(url.searchParams.get('lang')).toBe('en');
    expect(
      verifyIframeToken(url.searchParams.get('rl_token')!, { apiToken: link.token, pluginUrl: link.pluginUrl }).sub,
    ).toBe('123456789012345678');
    expect(
      (
        JSON.parse((await cli('iframe-url', link.guildId, link.roleId, '--viewer', 'me', '--json')).out) as {
          statusCode: number;
        }
      ).statusCode,
    ).toBe(400);
  });
});
