import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { parseConfigResponse } from '@rolelink/contracts';
import { normalizePluginUrl } from '@rolelink/domain';
import { PluginCallFailure } from '@rolelink/plugin-http';
import type { Resolver } from '@rolelink/plugin-http';
import { PluginHttp } from '@rolelink/plugin-http';
import { report } from './figures';

// SSRF: every way of writing "somewhere inside" as a plugin URL or an embed_url, tried against a
// real HTTPS listener on loopback (IPv4 and IPv6, so 0.0.0.0, [::] and ::1 would reach it too) that counts
// TCP connections. Two layers are measured separately: the check at link creation (and on a config
// response's embed_url), which gives the admin a clear message, and the broker's connect-time guard, which
// is the real boundary and must hold even for URLs the first layer would have stopped.

type Form = {
  name: string;
  url: (port: number) => string;
  /** How names resolve for this form (default: the system's resolver). */
  resolve?: Resolver;
  /** Names that only resolve privately pass the creation check (it does no DNS): the broker must stop them. */
  stoppedAt: 'creation' | 'connect';
};

const to =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
/** Public on the first lookup, loopback afterwards: DNS rebinding between a check and the connect. */
function rebinding(): Resolver {
  let calls = 0;
  return () =>
    Promise.resolve(calls++ === 0 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
}

const at = (host: string) => (port: number) => `https://${host}:${port}`;
const FORMS: Form[] = [
  // IPv4 loopback in every notation WHATWG URL parsing accepts.
  { name: 'dotted loopback', url: at('127.0.0.1'), stoppedAt: 'creation' },
  { name: 'decimal', url: at('2130706433'), stoppedAt: 'creation' },
  { name: 'octal', url: at('0177.0.0.1'), stoppedAt: 'creation' },
  { name: 'octal, one number', url: at('017700000001'), stoppedAt: 'creation' },
  { name: 'hex', url: at('0x7f.0.0.1'), stoppedAt: 'creation' },
  { name: 'hex, one number', url: at('0x7f000001'), stoppedAt: 'creation' },
  { name: 'short 127.1', url: at('127.1'), stoppedAt: 'creation' },
  { name: 'short 127.0.1', url: at('127.0.1'), stoppedAt: 'creation' },
  { name: 'short hex 0x7f.1', url: at('0x7f.1'), stoppedAt: 'creation' },
  { name: 'zero-padded', url: at('127.000.000.001'), stoppedAt: 'creation' },
  { name: 'trailing dot on an IP', url: at('127.0.0.1.'), stoppedAt: 'creation' },
  { name: 'fullwidth digits', url: at('１２７.０.０.１'), stoppedAt: 'creation' },
  { name: 'ideographic full stops', url: at('127。0。0。1'), stoppedAt: 'creation' },
  { name: '0.0.0.0', url: at('0.0.0.0'), stoppedAt: 'creation' },
  { name: 'bare 0', url: at('0'), stoppedAt: 'creation' },
  // IPv6 forms of loopback and of private IPv4.
  { name: '[::1]', url: at('[::1]'), stoppedAt: 'creation' },
  { name: '[::]', url: at('[::]'), stoppedAt: 'creation' },
  { name: 'long-form ::1', url: at('[0:0:0:0:0:0:0:1]'), stoppedAt: 'creation' },
  { name: 'IPv4-mapped dotted', url: at('[::ffff:127.0.0.1]'), stoppedAt: 'creation' },
  { name: 'IPv4-mapped hex', url: at('[::ffff:7f00:1]'), stoppedAt: 'creation' },
  { name: 'IPv4-mapped long form', url: at('[0:0:0:0:0:ffff:127.0.0.1]'), stoppedAt: 'creation' },
  { name: 'IPv4-compatible (deprecated)', url: at('[::127.0.0.1]'), stoppedAt: 'creation' },
  { name: 'NAT64 of loopback', url: at('[64:ff9b::127.0.0.1]'), stoppedAt: 'creation' },
  { name: 'NAT64 of RFC 1918', url: at('[64:ff9b::a00:1]'), stoppedAt: 'creation' },
  { name: '6to4 of loopback', url: at('[2002:7f00:1::]'), stoppedAt: 'creation' },
  { name: 'IPv4-mapped 10.0.0.1', url: at('[::ffff:a00:1]'), stoppedAt: 'creation' },
  { name: 'link-local IPv6', url: at('[fe80::1]'), stoppedAt: 'creation' },
  { name: 'unique local IPv6', url: at('[fd00::1]'), stoppedAt: 'creation' },
  // Private and reserved IPv4 ranges.
  { name: 'RFC 1918 10/8', url: at('10.0.0.1'), stoppedAt: 'creation' },
  { name: 'RFC 1918 172.16/12', url: at('172.16.0.1'), stoppedAt: 'creation' },
  { name: 'RFC 1918 192.168/16', url: at('192.168.1.1'), stoppedAt: 'creation' },
  { name: 'cloud metadata', url: at('169.254.169.254'), stoppedAt: 'creation' },
  { name: 'CGNAT 100.64/10', url: at('100.64.0.1'), stoppedAt: 'creation' },
  { name: 'benchmarking 198.18/15', url: at('198.18.0.1'), stoppedAt: 'creation' },
  { name: 'broadcast', url: at('255.255.255.255'), stoppedAt: 'creation' },
  // Internal names.
  { name: 'localhost', url: at('localhost'), stoppedAt: 'creation' },
  { name: 'LOCALHOST with trailing dot', url: at('LOCALHOST.'), stoppedAt: 'creation' },
  { name: 'sub.localhost', url: at('app.localhost'), stoppedAt: 'creation' },
  { name: '.internal', url: at('metadata.google.internal'), stoppedAt: 'creation' },
  { name: '.local (mDNS)', url: at('printer.local'), stoppedAt: 'creation' },
  // Userinfo, backslash and scheme tricks.
  { name: 'credentials', url: (p) => `https://user:pass@127.0.0.1:${p}`, stoppedAt: 'creation' },
  { name: 'public name as userinfo', url: (p) => `https://plugin.example.com@127.0.0.1:${p}`, stoppedAt: 'creation' },
  {
    name: 'public name after a backslash',
    url: (p) => `https://127.0.0.1:${p}\\@plugin.example.com`,
    stoppedAt: 'creation',
  },
  {
    name: 'public name after a fragment',
    url: (p) => `https://127.0.0.1:${p}#@plugin.example.com`,
    stoppedAt: 'creation',
  },
  { name: 'plain http', url: (p) => `http://plugin.example.com:${p}`, stoppedAt: 'creation' },
  // Public-looking names whose DNS points inside: only the connect-time guard can see these.
  { name: 'name resolving to 127.0.0.1', url: at('plugin.test'), resolve: to('127.0.0.1'), stoppedAt: 'connect' },
  { name: 'name resolving to ::1', url: at('plugin.test'), resolve: to('::1'), stoppedAt: 'connect' },
  {
    name: 'name resolving to ::ffff:127.0.0.1',
    url: at('plugin.test'),
    resolve: to('::ffff:127.0.0.1'),
    stoppedAt: 'connect',
  },
  { name: 'name resolving to 0.0.0.0', url: at('plugin.test'), resolve: to('0.0.0.0'), stoppedAt: 'connect' },
  {
    name: 'name resolving to public and private',
    url: at('plugin.test'),
    resolve: to('93.184.215.14', '127.0.0.1'),
    stoppedAt: 'connect',
  },
  {
    name: 'name with trailing dot resolving inside',
    url: at('plugin.test.'),
    resolve: to('127.0.0.1'),
    stoppedAt: 'connect',
  },
];

let server: https.Server;
let port = 0;
let connections = 0;
let ca = '';
let redirector: https.Server;
let redirectorPort = 0;
let redirectsServed = 0;

beforeAll(async () => {
  const names = ['localhost', 'plugin.test', 'app.localhost'];
  const pems = await generate([{ name: 'commonName', value: 'plugin.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  ca = pems.cert;
  // A certificate valid for every loopback name, so a connection let through would complete and be served.
  server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) =>
    res.writeHead(200).end('{"status":"ok"}'),
  );
  server.on('connection', () => connections++);
  server.listen({ port: 0, host: '::', ipv6Only: false });
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  // An allow-listed plugin whose answer is a redirect inside.
  redirector = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    redirectsServed++;
    res.writeHead(302, { location: decodeURIComponent((req.url ?? '/').slice(1)) }).end();
  });
  redirector.listen({ port: 0, host: '127.0.0.1' });
  await once(redirector, 'listening');
  redirectorPort = (redirector.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  redirector.closeAllConnections();
  await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => redirector.close(r))]);
});

const client = (allowHosts: string[], resolve?: Resolver) =>
  new PluginHttp({ allowHosts, ca, ...(resolve ? { resolve } : {}) });

async function attempt(http: PluginHttp, url: string): Promise<string> {
  try {
    const res = await http.request({ method: 'GET', url: `${url}/health`, timeoutMs: 1500 });
    return `answered ${res.status}`;
  } catch (err) {
    return err instanceof PluginCallFailure ? err.kind : `threw ${String(err)}`;
  }
}

function embedRejection(url: string): string | null {
  const r = parseConfigResponse(
    { version: 1, ui_mode: 'iframe', name: 'Plugin', embed_url: `${url}/embed` },
    // The broker's own check of embed_url (calls/get-config.ts).
    { isForbiddenHost: (u) => !normalizePluginUrl(u.origin, []).ok },
  );
  return r.ok ? null : r.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}

const rows: { form: string; creation: string; embed: string; connect: string; reached: number }[] = [];

describe('SSRF matrix: no plugin URL or embed_url form reaches a loopback listener', () => {
  it('has at least 40 forms', () => {
    expect(FORMS.length).toBeGreaterThanOrEqual(40);
  });

  it('the listener counts connections the guard lets through (control: allow-listed hosts reach it)', async () => {
    const before = connections;
    expect(await attempt(client(['127.0.0.1']), `https://127.0.0.1:${port}`)).toBe('answered 200');
    expect(await attempt(client(['plugin.test'], to('::1')), `https://plugin.test:${port}`)).toBe('answered 200');
    expect(connections - before).toBe(2);
  });

  it.each(FORMS.map((f) => [f.name, f] as const))('%s', async (_name, form) => {
    const url = form.url(port);
    const created = normalizePluginUrl(url, []);
    const embed = embedRejection(url);
    const before = connections;
    const connect = await attempt(client([], form.resolve), url);
    const reached = connections - before;
    rows.push({
      form: form.name,
      creation: created.ok ? 'accepted' : created.reason,
      embed: embed ?? 'accepted',
      connect,
      reached,
    });

    expect(reached).toBe(0);
    expect(connect).not.toMatch(/^answered/);
    if (form.stoppedAt === 'creation') {
      // The admin sees why, next to the field, and the plugin's embed_url is refused the same way.
      expect(created.ok ? 'accepted' : created.reason).toMatch(/^plugin URL (must|is not)/);
      expect(embed).toMatch(/^embed_url: /);
    } else {
      expect(created.ok).toBe(true);
      expect(connect).toBe('blocked');
    }
  });

  it('DNS rebinding: a name that was public at one lookup and loopback at the next is blocked at connect', async () => {
    const http = client([], rebinding());
    const before = connections;
    // The first lookup answers a public address this closed network cannot reach; the second, loopback.
    await attempt(http, `https://plugin.test:${port}`);
    expect(await attempt(http, `https://plugin.test:${port}`)).toBe('blocked');
    expect(connections - before).toBe(0);
    rows.push({
      form: 'DNS rebinding between lookups',
      creation: 'accepted',
      embed: 'accepted',
      connect: 'blocked',
      reached: connections - before,
    });
  });

  it.each([
    ['loopback by IP', (p: number) => `https://[::1]:${p}/`],
    ['loopback by name', (p: number) => `https://localhost:${p}/`],
    ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data/'],
  ])('a redirect from an allow-listed plugin to %s is never followed', async (_name, target) => {
    const served = redirectsServed;
    const before = connections;
    const url = `https://127.0.0.1:${redirectorPort}/${encodeURIComponent(target(port))}`;
    const http = new PluginHttp({ allowHosts: ['127.0.0.1'], ca });
    const res = await http.request({ method: 'GET', url, timeoutMs: 1500 }).then(
      () => 'answered',
      (e: unknown) => (e instanceof PluginCallFailure ? e.kind : String(e)),
    );
    expect(redirectsServed - served).toBe(1);
    expect(res).toBe('redirect');
    expect(connections - before).toBe(0);
    rows.push({
      form: `redirect to ${_name}`,
      creation: 'accepted (allow-listed)',
      embed: '-',
      connect: res,
      reached: connections - before,
    });
  });

  afterAll(() => {
    const reached = rows.reduce((n, r) => n + r.reached, 0);
    report([
      { scenario: 'ssrf', name: 'forms tried', value: rows.length, goal: '≥ 40', met: rows.length >= 40 },
      { scenario: 'ssrf', name: 'connections reached', value: reached, goal: '0', met: reached === 0 },
      {
        scenario: 'ssrf',
        name: 'rejected at link creation with a message',
        value: rows.filter((r) => r.creation !== 'accepted' && !r.creation.startsWith('accepted')).length,
      },
      {
        scenario: 'ssrf',
        name: 'stopped by the connect-time guard',
        value: rows.filter((r) => r.connect === 'blocked' || r.connect === 'redirect').length,
      },
    ]);
    for (const r of rows)
      process.stdout.write(`[ssrf] ${r.form} | ${r.creation} | ${r.embed} | ${r.connect} | reached ${r.reached}\n`);
  });
});
