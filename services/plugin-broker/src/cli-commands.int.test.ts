// The rolelink commands of issue 4 (packages/cli/src/commands) against a real broker and HTTPS plugin.
import { verifyIframeToken } from '@rolelink/plugin-sdk';
import { configGetRun, configSetRun, type PluginCommandContext } from '../../../packages/cli/src/commands/config';
import { healthRun } from '../../../packages/cli/src/commands/health';
import { iframeUrlRun } from '../../../packages/cli/src/commands/iframe';
import { enqueueHealthChecks } from './health/health-poll';
import { rejection, startHarness, type Harness, type SeededLink } from './testing/harness';
import { json } from './testing/test-plugin';

let h: Harness;
let ctx: PluginCommandContext;
let link: SeededLink;
beforeAll(async () => {
  h = await startHarness();
  ctx = { prisma: h.db.prisma, plugins: h.client };
  link = await h.seedLink();
});
afterAll(() => h.close());

const form = {
  version: 1,
  name: 'Levels',
  sections: [{ title: 'Main', fields: [{ type: 'number', key: 'min_level', label: 'Min', validation: { required: true, max: 10 } }, { type: 'secret', key: 'key', label: 'Key' }] }],
  values: { min_level: 3, key: 'hunter2' },
};


describe('rolelink config / iframe-url / health', () => {
  it('config get prints the form with fresh values and masks secrets in text output', async () => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    const out = await configGetRun(ctx, [link.guildId, link.roleId, '--refresh']);
    expect(out.data).toMatchObject({ ui_mode: 'schema', values: { min_level: 3 } });
    expect(out.text).toContain('min_level (number, required): 3');
    expect(out.text).toContain('key (secret): ********');
    expect(out.text).not.toContain('hunter2');
  });

  it('config set --json validates and submits', async () => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    h.plugin.on('POST /config', (_req, res) => json(res, 200, { ok: true }));
    const out = await configSetRun(ctx, [link.guildId, link.roleId, '--json', '{"min_level": 4}']);
    expect(out.data).toEqual({ status: 200, body: { ok: true } });
    const bad = await rejection(configSetRun(ctx, [link.guildId, link.roleId, '--json', '{"min_level": 40}']));
    expect(bad.status).toBe(400);
    expect(bad.body?.errors).toEqual([{ field: 'min_level', message: 'Min must be at most 10' }]);
  });

  it('iframe-url mints a token for the viewer, and refuses a schema-mode plugin', async () => {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, { version: 1, ui_mode: 'iframe', name: 'E', embed_url: 'https://127.0.0.1:9/e' }));
    const out = await iframeUrlRun(ctx, [link.guildId, link.roleId, '--viewer', '123456789012345678']);
    const token = new URL(out.text).searchParams.get('rl_token')!;
    expect(verifyIframeToken(token, { apiToken: link.token, pluginUrl: link.pluginUrl }).sub).toBe('123456789012345678');
    h.plugin.on('GET /config', (_req, res) => json(res, 200, form));
    expect((await rejection(iframeUrlRun(ctx, [link.guildId, link.roleId, '--viewer', '123456789012345678']))).status).toBe(400);
    expect((await rejection(iframeUrlRun(ctx, [link.guildId, link.roleId, '--viewer', 'me']))).status).toBe(400);
  });

  it('health shows unknown before the first poll and the latest status after it', async () => {
    expect((await healthRun(ctx, [link.guildId, link.roleId])).data).toMatchObject({ status: 'unknown', latest: null });
    h.plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    const done = h.completed('health-check');
    await enqueueHealthChecks(h.ctx, h.broker.queue);
    await done;
    const out = await healthRun(ctx, [link.guildId, link.roleId]);
    expect(out.data).toMatchObject({ status: 'healthy', plugin_url: link.pluginUrl });
    expect(out.text).toMatch(/healthy/);
  });

  it('answers 404 for an unknown link and 400 for malformed ids', async () => {
    expect((await rejection(configGetRun(ctx, ['1', '2']))).message).toBe('Role link not found');
    expect((await rejection(healthRun(ctx, ['abc', '2']))).status).toBe(400);
  });
});
