import { startTestPlugin, json, type TestPlugin } from '../../../services/plugin-broker/test/support/test-plugin';
import { BlockedAddressError, PluginCallFailure } from './failure';
import { addressPolicy, guardedLookup, type Resolver } from './guarded-agent';
import { MAX_PLUGIN_BODY_BYTES, PluginHttp } from './plugin-http';

let plugin: TestPlugin;
beforeAll(async () => {
  plugin = await startTestPlugin();
});
afterAll(() => plugin.close());

/** Resolves every name to loopback, like a public name whose DNS record points at 127.0.0.1. */
const toLoopback: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);

function client(allowHosts: string[] = ['127.0.0.1'], resolve?: Resolver): PluginHttp {
  return new PluginHttp({ allowHosts, ca: plugin.ca, ...(resolve ? { resolve } : {}) });
}

async function failure(p: Promise<unknown>): Promise<PluginCallFailure> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PluginCallFailure);
  return err as PluginCallFailure;
}

describe('PluginHttp', () => {
  it('sends exactly the headers of spec 4.2 with a JSON body and an Authorization token', async () => {
    plugin.on('POST /config', (_req, res) => json(res, 200, { ok: true }));
    const res = await client().request({
      method: 'POST',
      url: `${plugin.url}/config`,
      token: 'rl_abc',
      json: { guild_id: '1' },
      timeoutMs: 2000,
    });
    expect(res.status).toBe(200);
    const seen = plugin.requests.at(-1)!;
    expect(seen.headers['authorization']).toBe('Token rl_abc');
    expect(seen.headers['user-agent']).toBe('Service/1.0');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['accept']).toBeUndefined();
    expect(seen.headers['accept-encoding']).toBeUndefined();
    expect(Object.keys(seen.headers).sort()).toEqual([
      'authorization',
      'connection',
      'content-length',
      'content-type',
      'host',
      'user-agent',
    ]);
    expect(JSON.parse(seen.body)).toEqual({ guild_id: '1' });
  });

  it('sends Accept on GET /config and no Authorization on health', async () => {
    plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    await client().request({ method: 'GET', url: `${plugin.url}/health`, timeoutMs: 2000 });
    expect(plugin.requests.at(-1)!.headers['authorization']).toBeUndefined();
    plugin.on('GET /config', (_req, res) => json(res, 200, {}));
    await client().request({
      method: 'GET',
      url: `${plugin.url}/config`,
      token: 'rl_x',
      accept: true,
      timeoutMs: 2000,
    });
    expect(plugin.requests.at(-1)!.headers['accept']).toBe('application/json');
    expect(plugin.requests.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('times out a plugin that never answers', async () => {
    plugin.on('GET /slow', () => undefined);
    const err = await failure(client().request({ method: 'GET', url: `${plugin.url}/slow`, timeoutMs: 150 }));
    expect(err.kind).toBe('timeout');
  });

  it('times out a plugin that sends headers but trickles its body', async () => {
    plugin.on('GET /trickle', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
    });
    const err = await failure(client().request({ method: 'GET', url: `${plugin.url}/trickle`, timeoutMs: 200 }));
    expect(err.kind).toBe('timeout');
  });

  it('cuts a body past 50 KB and reports it truncated', async () => {
    plugin.on('GET /big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('x'.repeat(MAX_PLUGIN_BODY_BYTES * 4));
    });
    const res = await client().request({ method: 'GET', url: `${plugin.url}/big`, timeoutMs: 2000 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(MAX_PLUGIN_BODY_BYTES);
  });

  it("takes a larger cap for one call and returns the answer's headers (the iframe page check of rolelink plugin check)", async () => {
    plugin.on('GET /page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "frame-ancestors 'self'" });
      res.end('x'.repeat(MAX_PLUGIN_BODY_BYTES * 2));
    });
    const res = await client().request({
      method: 'GET',
      url: `${plugin.url}/page`,
      timeoutMs: 2000,
      maxBodyBytes: MAX_PLUGIN_BODY_BYTES * 4,
    });
    expect([res.truncated, res.body.length]).toEqual([false, MAX_PLUGIN_BODY_BYTES * 2]);
    expect(res.headers['content-security-policy']).toBe("frame-ancestors 'self'");
  });

  it('refuses a redirect, even one to an allowed loopback address', async () => {
    plugin.on('GET /moved', (_req, res) => res.writeHead(302, { location: `${plugin.url}/health` }).end());
    const before = plugin.requests.length;
    const err = await failure(client().request({ method: 'GET', url: `${plugin.url}/moved`, timeoutMs: 2000 }));
    expect(err.kind).toBe('redirect');
    expect(plugin.requests.length).toBe(before + 1);
  });

  it('blocks loopback in every numeric host form unless allow-listed', async () => {
    const port = plugin.port;
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
    ]) {
      const err = await failure(
        client([]).request({ method: 'GET', url: `https://${host}:${port}/health`, timeoutMs: 2000 }),
      );
      expect(err.kind).toBe('blocked');
    }
  });

  it('blocks a public-looking name that resolves to a private address', async () => {
    const before = plugin.requests.length;
    const err = await failure(
      client([], toLoopback).request({
        method: 'GET',
        url: `https://plugin.test:${plugin.port}/health`,
        timeoutMs: 2000,
      }),
    );
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('127.0.0.1');
    expect(plugin.requests.length).toBe(before);
  });

  it('blocks localhost by its resolved address', async () => {
    const err = await failure(
      client([]).request({ method: 'GET', url: `https://localhost:${plugin.port}/health`, timeoutMs: 2000 }),
    );
    expect(err.kind).toBe('blocked');
  });

  it('blocks a name when any one of its addresses is private, before connecting to any', async () => {
    // Checked on the lookup itself: a guard that looked only at the first address would hand both to
    // happy-eyeballs, which may connect to either.
    const mixed: Resolver = () =>
      Promise.resolve([
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.8', family: 4 },
      ]);
    const lookup = guardedLookup(mixed, addressPolicy([]));
    const result = await new Promise<unknown>((resolve) =>
      lookup('plugin.test', { all: true }, (err, addresses) => resolve(err ?? addresses)),
    );
    expect(result).toBeInstanceOf(BlockedAddressError);
    const single = await new Promise<unknown>((resolve) =>
      lookup('plugin.test', {}, (err, address) => resolve(err ?? address)),
    );
    expect(single).toBeInstanceOf(BlockedAddressError);
  });

  it('does not let an allow-listed IP admit a name that resolves to it', async () => {
    const err = await failure(
      client(['127.0.0.1'], toLoopback).request({
        method: 'GET',
        url: `https://plugin.test:${plugin.port}/health`,
        timeoutMs: 2000,
      }),
    );
    expect(err.kind).toBe('blocked');
  });

  it('lets an allow-listed name reach its private address', async () => {
    plugin.on('GET /health', (_req, res) => json(res, 200, { status: 'healthy' }));
    const res = await client(['plugin.test'], toLoopback).request({
      method: 'GET',
      url: `https://plugin.test:${plugin.port}/health`,
      timeoutMs: 2000,
    });
    expect(res.status).toBe(200);
  });

  it('refuses plain HTTP', async () => {
    const err = await failure(
      client().request({ method: 'GET', url: `http://127.0.0.1:${plugin.port}/health`, timeoutMs: 2000 }),
    );
    expect(err.kind).toBe('blocked');
  });

  it('reports a refused connection as a network failure', async () => {
    const err = await failure(client().request({ method: 'GET', url: 'https://127.0.0.1:1/health', timeoutMs: 2000 }));
    expect(err.kind).toBe('network');
  });

  it('does not trust a certificate outside the CA store', async () => {
    const untrusting = new PluginHttp({ allowHosts: ['127.0.0.1'] });
    const err = await failure(untrusting.request({ method: 'GET', url: `${plugin.url}/health`, timeoutMs: 2000 }));
    expect(err.kind).toBe('network');
  });
});
