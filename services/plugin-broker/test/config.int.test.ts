import jwt from 'jsonwebtoken';
import { PluginCallMessage, type ConfigView } from '@rolelink/contracts';
import { generateToken } from '@rolelink/domain';
import { IFRAME_TOKEN_ISSUER, verifyIframeToken } from '@rolelink/plugin-sdk';
import { IFRAME_SUBMIT_MESSAGE, INVALID_CONFIG_MESSAGE } from '../src/calls/submit-config';
import { rejection, startHarness, type Harness, type SeededLink } from './support/harness';
import { json } from './support/test-plugin';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const form = (name = 'Levels', extraField: Record<string, unknown>[] = []) => ({
  version: 1,
  name,
  sections: [
    {
      title: 'Main',
      fields: [
        { type: 'number', key: 'min_level', label: 'Minimum level', validation: { required: true, min: 0, max: 100 } },
        { type: 'toggle', key: 'advanced', label: 'Advanced' },
        {
          type: 'secret',
          key: 'api_key',
          label: 'API key',
          condition: { field: 'advanced', equals: true },
          validation: { required: true },
        },
        { type: 'display', key: 'note', label: 'Note', value: 'hello' },
        ...extraField,
      ],
    },
  ],
});
const iframe = (embed = 'https://127.0.0.1:9/embed?theme=dark') => ({
  version: 1,
  ui_mode: 'iframe',
  name: 'Embedded',
  embed_url: embed,
});

function serveConfig(body: unknown, status = 200): void {
  h.plugin.on('GET /config', (_req, res) => json(res, status, body));
}

let link: SeededLink;
beforeEach(async () => {
  link = await h.seedLink();
});

describe('fetchConfig', () => {
  it('returns the validated schema with fresh values and sends the GET /config headers of spec 4.2', async () => {
    serveConfig({ ...form(), values: { min_level: 5 } });
    const seen = h.plugin.next('GET /config');
    const view = await h.client.fetchConfig(link.linkId);
    expect(view).toMatchObject({ ui_mode: 'schema', source: 'plugin', values: { min_level: 5 } });
    expect(view.ui_mode === 'schema' && view.schema.name).toBe('Levels');
    const req = await seen;
    expect(req.headers['authorization']).toBe(`Token ${link.token}`);
    expect(req.headers['user-agent']).toBe('Service/1.0');
    expect(req.headers['accept']).toBe('application/json');
  });

  it('keeps the cached structure for 5 minutes while values stay fresh, and a forced refresh takes the new one', async () => {
    serveConfig({ ...form('First'), values: { min_level: 1 } });
    await h.client.fetchConfig(link.linkId);
    serveConfig({ ...form('Second'), values: { min_level: 2 } });
    const cached = (await h.client.fetchConfig(link.linkId)) as Extract<ConfigView, { ui_mode: 'schema' }>;
    expect([cached.source, cached.schema.name, cached.values]).toEqual(['cache', 'First', { min_level: 2 }]);
    const refreshed = (await h.client.fetchConfig(link.linkId, { refresh: true })) as Extract<
      ConfigView,
      { ui_mode: 'schema' }
    >;
    expect([refreshed.source, refreshed.schema.name]).toEqual(['plugin', 'Second']);
  });

  it('takes the plugin structure again once the cached one is over 5 minutes old', async () => {
    serveConfig(form('First'));
    await h.client.fetchConfig(link.linkId);
    serveConfig(form('Second'));
    await h.ageCache(link.linkId, 5 * 60_000 + 1);
    const view = await h.client.fetchConfig(link.linkId);
    expect(view.ui_mode === 'schema' && view.schema.name).toBe('Second');
  });

  it('answers 502 "plugin server unreachable" with nothing cached when the plugin fails, times out or is down', async () => {
    serveConfig({ error: 'boom' }, 500);
    expect((await rejection(h.client.fetchConfig(link.linkId))).message).toBe(PluginCallMessage.fetchUnreachable);
    h.plugin.on('GET /config', () => undefined);
    const slow = await rejection(h.client.fetchConfig(link.linkId));
    expect([slow.status, slow.message]).toEqual([502, PluginCallMessage.fetchUnreachable]);
    const down = await h.seedLink('https://127.0.0.1:1');
    expect((await rejection(h.client.fetchConfig(down.linkId))).message).toBe(PluginCallMessage.fetchUnreachable);
  });

  it('answers 502 "Plugin returned invalid schema" naming the offending paths', async () => {
    serveConfig({ ...form(), version: 2 });
    const err = await rejection(h.client.fetchConfig(link.linkId));
    expect([err.status, err.message]).toEqual([502, PluginCallMessage.invalidSchema]);
    expect(err.issues).toEqual([{ field: 'version', message: 'must be 1' }]);
  });

  it('treats a body over 50 KB or not JSON as an invalid schema', async () => {
    h.plugin.on('GET /config', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ...form(), description: 'x'.repeat(60_000) })),
    );
    expect((await rejection(h.client.fetchConfig(link.linkId))).message).toBe(PluginCallMessage.invalidSchema);
    h.plugin.on('GET /config', (_req, res) => res.writeHead(200).end('<html>'));
    expect((await rejection(h.client.fetchConfig(link.linkId))).message).toBe(PluginCallMessage.invalidSchema);
  });

  it('falls back to the cached structure without values when the plugin becomes unreachable or invalid', async () => {
    serveConfig({ ...form('Good'), values: { min_level: 3 } });
    await h.client.fetchConfig(link.linkId);
    h.plugin.on('GET /config', () => undefined);
    const down = await h.client.fetchConfig(link.linkId);
    expect(down).toMatchObject({ ui_mode: 'schema', source: 'fallback', fallback_reason: 'unreachable', values: {} });
    serveConfig({ ...form(), sections: [] });
    const bad = await h.client.fetchConfig(link.linkId, { refresh: true });
    expect(bad).toMatchObject({
      source: 'fallback',
      fallback_reason: 'invalid_schema',
      schema_errors: [{ field: 'sections' }],
    });
    expect(bad.ui_mode === 'schema' && bad.schema.name).toBe('Good');
  });

  it('follows the latest ui_mode even while a structure of the other mode is cached', async () => {
    serveConfig(form());
    expect((await h.client.fetchConfig(link.linkId)).ui_mode).toBe('schema');
    serveConfig(iframe());
    expect((await h.client.fetchConfig(link.linkId)).ui_mode).toBe('iframe');
    serveConfig(form());
    expect((await h.client.fetchConfig(link.linkId)).ui_mode).toBe('schema');
  });

  it('refuses an iframe embed_url on a private host', async () => {
    serveConfig(iframe('https://10.1.2.3/embed'));
    const err = await rejection(h.client.fetchConfig(link.linkId));
    expect(err.issues).toEqual([{ field: 'embed_url', message: 'must not point to a private or internal host' }]);
  });

  it('answers 404 for an unknown link, with the code the broker gave it', async () => {
    const err = await rejection(h.client.fetchConfig('999999999'));
    expect([err.status, err.message, err.code, err.toBody()]).toEqual([
      404,
      'Role link not found',
      'not_found',
      { statusCode: 404, message: 'Role link not found' },
    ]);
  });
});

describe('iframe mode tokens (spec 4.3, 5.7)', () => {
  it('appends an rl_token that a plugin verifies with its link token, keeping existing query parameters', async () => {
    serveConfig(iframe());
    const viewerId = '123456789012345678';
    const view = await h.client.fetchConfig(link.linkId, { viewerId });
    expect(view.ui_mode).toBe('iframe');
    const url = new URL(view.ui_mode === 'iframe' ? view.embed_url : '');
    expect(url.searchParams.get('theme')).toBe('dark');
    const token = url.searchParams.get('rl_token')!;

    const claims = verifyIframeToken(token, { apiToken: link.token, pluginUrl: link.pluginUrl });
    expect(claims).toMatchObject({
      iss: IFRAME_TOKEN_ISSUER,
      aud: link.pluginUrl,
      sub: viewerId,
      guild_id: link.guildId,
      role_id: link.roleId,
    });
    expect(claims.exp - claims.iat).toBe(300);
    expect(jwt.decode(token, { complete: true })?.header.alg).toBe('HS256');
    // As a plugin without the SDK would check it:
    expect(() =>
      jwt.verify(token, link.token, { algorithms: ['HS256'], issuer: IFRAME_TOKEN_ISSUER, audience: link.pluginUrl }),
    ).not.toThrow();
  });

  it("produces a token that another link's token, another audience or a later clock rejects", async () => {
    serveConfig(iframe());
    const other = await h.seedLink();
    const view = await h.client.fetchConfig(link.linkId, { viewerId: '123456789012345678' });
    const token = new URL(view.ui_mode === 'iframe' ? view.embed_url : '').searchParams.get('rl_token')!;
    expect(() => verifyIframeToken(token, { apiToken: other.token, pluginUrl: link.pluginUrl })).toThrow(
      /invalid signature/,
    );
    expect(() => verifyIframeToken(token, { apiToken: generateToken(), pluginUrl: link.pluginUrl })).toThrow(
      /invalid signature/,
    );
    expect(() => verifyIframeToken(token, { apiToken: link.token, pluginUrl: 'https://other.example.com' })).toThrow(
      /audience/,
    );
    expect(() =>
      verifyIframeToken(token, {
        apiToken: link.token,
        pluginUrl: link.pluginUrl,
        now: new Date(Date.now() + 310_000),
      }),
    ).toThrow(/expired/);
  });

  it('returns the bare embed_url when no viewer is named', async () => {
    serveConfig(iframe());
    const view = await h.client.fetchConfig(link.linkId);
    expect(view.ui_mode === 'iframe' && view.embed_url).toBe('https://127.0.0.1:9/embed?theme=dark');
  });
});

describe('submitConfig', () => {
  it('validates, strips hidden and display fields, and posts guild_id, role_id and config with the spec headers', async () => {
    serveConfig(form());
    h.plugin.on('POST /config', (_req, res) => json(res, 200, { saved: true }));
    const posted = h.plugin.next('POST /config');
    const result = await h.client.submitConfig(link, { min_level: 7, advanced: false, api_key: 'hidden', note: 'x' });
    expect(result).toEqual({ status: 200, body: { saved: true } });
    const req = await posted;
    expect(JSON.parse(req.body)).toEqual({
      guild_id: link.guildId,
      role_id: link.roleId,
      config: { min_level: 7, advanced: false },
    });
    expect(req.headers['authorization']).toBe(`Token ${link.token}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Service/1.0');
  });

  it('refuses an invalid submission with 400 and per-field errors, without calling the plugin', async () => {
    serveConfig(form());
    const before = h.plugin.requests.filter((r) => r.method === 'POST').length;
    const err = await rejection(h.client.submitConfig(link, { min_level: 500, advanced: true, ghost: 1 }));
    expect([err.status, err.message, err.code]).toEqual([400, INVALID_CONFIG_MESSAGE, 'invalid_config']);
    expect(err.issues).toEqual(
      expect.arrayContaining([
        { field: 'ghost', message: 'ghost is not a field of this form' },
        { field: 'min_level', message: 'Minimum level must be at most 100' },
        { field: 'api_key', message: 'API key is required' },
      ]),
    );
    expect(h.plugin.requests.filter((r) => r.method === 'POST').length).toBe(before);
  });

  it('reads the link by guild and role (404 when there is none) and refuses a config that is not an object, without calling the plugin', async () => {
    serveConfig(form());
    const before = h.plugin.requests.filter((r) => r.method === 'POST').length;
    const missing = await rejection(
      h.client.submitConfig({ guildId: link.guildId, roleId: '123456789012345678' }, { min_level: 1 }),
    );
    expect([missing.status, missing.message, missing.code, missing.toBody()]).toEqual([
      404,
      'Role link not found',
      'link_not_found',
      { statusCode: 404, message: 'Role link not found' },
    ]);
    const notObject = await rejection(h.client.submitConfig(link, [1] as unknown as Record<string, unknown>));
    expect([notObject.status, notObject.code, notObject.issues]).toEqual([
      400,
      'invalid_config',
      [{ field: 'config', message: 'config must be a JSON object' }],
    ]);
    expect(h.plugin.requests.filter((r) => r.method === 'POST').length).toBe(before);
  });

  it('forwards a 4xx with the text of its error or message field', async () => {
    serveConfig(form());
    h.plugin.on('POST /config', (_req, res) => json(res, 422, { error: 'Level too high for this server' }));
    const a = await rejection(h.client.submitConfig(link, { min_level: 1 }));
    expect([a.status, a.message]).toEqual([
      422,
      'Failed to submit config to plugin server: Level too high for this server',
    ]);
    h.plugin.on('POST /config', (_req, res) => json(res, 409, { message: 'Already configured' }));
    const b = await rejection(h.client.submitConfig(link, { min_level: 1 }));
    expect([b.status, b.message]).toEqual([409, 'Failed to submit config to plugin server: Already configured']);
  });

  it('answers 502 on a 5xx or a timeout of POST /config', async () => {
    serveConfig(form());
    h.plugin.on('POST /config', (_req, res) => json(res, 503, { error: 'down' }));
    const a = await rejection(h.client.submitConfig(link, { min_level: 1 }));
    expect([a.status, a.message]).toEqual([502, PluginCallMessage.submit]);
    h.plugin.on('POST /config', () => undefined);
    const b = await rejection(h.client.submitConfig(link, { min_level: 1 }));
    expect([b.status, b.message]).toEqual([502, PluginCallMessage.submit]);
  });

  it('refuses a submission in iframe mode with 400 and never calls POST /config', async () => {
    serveConfig(iframe());
    await h.client.fetchConfig(link.linkId);
    const before = h.plugin.requests.filter((r) => r.method === 'POST').length;
    const err = await rejection(h.client.submitConfig(link, { anything: 1 }));
    expect([err.status, err.message]).toEqual([400, IFRAME_SUBMIT_MESSAGE]);
    expect(h.plugin.requests.filter((r) => r.method === 'POST').length).toBe(before);
  });
});
