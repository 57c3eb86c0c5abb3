import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { generate } from 'selfsigned';
import {
  configForm,
  embedPageHeaders,
  fields,
  iframeResponse,
  MemoryTokenStore,
  pluginMiddleware,
  section,
  type PluginHooks,
} from '@rolelink/plugin-sdk';
import { createPluginApp } from '../../../examples/plugin-server/src/app';
import { Registrations } from '../../../examples/plugin-server/src/registrations';
import { writeSelfSignedCert } from '../../../examples/plugin-server/src/tls';
import { run } from '../src/main';

/** What `rolelink plugin check --json` prints (the fields these tests read). */
type Report = { findings: { check: string; result: string }[] };

// Plugins on loopback over HTTPS with a self-signed certificate, trusted through --ca.
let dir: string;
let certFile: string;
let tls: { cert: string; key: string };
const servers: https.Server[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'plugin-check-'));
  certFile = path.join(dir, 'cert.pem');
  tls = await writeSelfSignedCert(certFile, path.join(dir, 'key.pem'));
  process.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS = '127.0.0.1';
});
afterAll(() => {
  process.env = saved;
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function serve(app: express.Express, pems: { cert: string; key: string } = tls): Promise<string> {
  const server = https.createServer({ cert: pems.cert, key: pems.key }, app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function check(url: string, json = false, ca: string | null = certFile) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(
    ['plugin', 'check', url, ...(ca ? ['--ca', ca] : []), ...(json ? ['--json'] : [])],
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A plugin built on the SDK serving `getConfig`, and an /embed page with the given headers. */
async function sdkPlugin(
  getConfig: (base: string) => PluginHooks['getConfig'],
  embedHeaders: Record<string, string> = {},
): Promise<string> {
  const app = express();
  let base = '';
  app.use(express.json());
  app.use(
    pluginMiddleware({
      store: new MemoryTokenStore(),
      getConfig: (l) => getConfig(base)(l),
      saveConfig: () => ({ ok: true }),
    }),
  );
  app.get('/embed', (_req, res) => void res.set(embedHeaders).type('html').send('<!doctype html><p>page</p>'));
  base = await serve(app);
  return base;
}

describe('rolelink plugin check', () => {
  it('passes the example plugin, leaves it holding no throw-away link, and prints a report per check', async () => {
    const registrations = new Registrations(null);
    const wanted: string[] = [];
    const url = await serve(
      createPluginApp({
        registrations,
        defaultCount: 5,
        log: () => undefined,
        onListWanted: (l) => void wanted.push(l.guildId),
        publicUrl: 'https://127.0.0.1',
        dashboardOrigins: ['http://127.0.0.1:3001'],
      }),
    );
    const human = await check(url);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/POST \/register: ok — answered 200/);
    expect(human.out).toMatch(/GET \/config: ok — .*schema "Demo member list", 6 section\(s\)/);
    expect(human.out).toMatch(/POST \/config: ok — defaults \{"member_count":20,.*answered 200/);
    expect(human.out).toMatch(/GET \/health: ok — answered 200 .*: healthy/);
    expect(human.out).toMatch(
      /POST \/events: ok — answered 204 .* to a signed test event \(asks for member.not_in_guild, removal.held, removal.applied, list.resend_requested\)/,
    );
    expect(human.out).toMatch(/verdict: conformant \(1 warning\)/); // 127.0.0.1 is a private host
    expect(registrations.all()).toEqual([]);
    expect(wanted).toHaveLength(2); // after /register and after the submitted defaults

    const json = await check(url, true);
    const report = JSON.parse(json.out) as Report;
    expect(report).toMatchObject({ plugin_url: url, ok: true, ui_mode: 'schema' });
    expect(report.findings.map((f: { check: string; result: string }) => `${f.check} ${f.result}`)).toEqual([
      'plugin URL warn',
      'POST /register pass',
      'GET /config pass',
      'POST /config pass',
      'GET /health pass',
      'POST /events pass',
      'POST /events signature pass',
      'DELETE /config pass',
    ]);
  });

  it('names every schema rejection by path and exits 1', async () => {
    const broken = configForm({
      name: 'Broken',
      sections: [
        section('S', [
          fields.slider('s', 'S', { min: 5, max: 1 }),
          fields.text('t', 'T', { condition: { field: 'nope', equals: 1 } }),
        ]),
      ],
    });
    const url = await sdkPlugin(() => () => broken.response());
    const { code, out } = await check(url, true);
    expect(code).toBe(1);
    const finding = (JSON.parse(out) as Report).findings.find((f: { check: string }) => f.check === 'GET /config');
    expect(finding).toMatchObject({
      result: 'fail',
      errors: expect.arrayContaining([
        expect.objectContaining({ field: 'sections[0].fields[0].max' }),
        expect.objectContaining({ field: 'sections[0].fields[1].condition.field' }),
      ]),
    });
  });

  it('checks an iframe page for frame-ancestors and a blocking X-Frame-Options', async () => {
    const page = (base: string) => () => iframeResponse({ name: 'Embedded', embedUrl: `${base}/embed?x=1` });
    const good = await sdkPlugin(page, embedPageHeaders(['https://dash.example.com']));
    const ok = JSON.parse((await check(good, true)).out) as Report;
    expect(ok).toMatchObject({ ok: true, ui_mode: 'iframe' });
    expect(ok.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check: 'frame-ancestors',
          result: 'pass',
          message: 'frame-ancestors https://dash.example.com',
        }),
        expect.objectContaining({ check: 'X-Frame-Options', result: 'pass' }),
      ]),
    );

    const bad = await sdkPlugin(page, { 'X-Frame-Options': 'SAMEORIGIN' });
    const refused = await check(bad);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/frame-ancestors: FAIL — no Content-Security-Policy frame-ancestors/);
    expect(refused.out).toMatch(/X-Frame-Options: FAIL — X-Frame-Options: SAMEORIGIN blocks the dashboard/);
    expect(refused.out).toMatch(/verdict: NOT conformant: 2 failures/);
  });

  it('fails an unreachable plugin at /register and an http:// URL at once', async () => {
    const gone = await check('https://127.0.0.1:9', true);
    expect(gone.code).toBe(1);
    expect((JSON.parse(gone.out) as Report).findings[1]).toMatchObject({
      check: 'POST /register',
      result: 'fail',
      message: expect.stringMatching(/no answer/),
    });
    const plain = await check('http://plugin.example.com', true);
    expect(JSON.parse(plain.out)).toMatchObject({
      ok: false,
      findings: [{ check: 'plugin URL', result: 'fail', message: 'plugin URL must use HTTPS' }],
    });
  });

  it('names --ca for an untrusted certificate, once, on the first call', async () => {
    const url = await sdkPlugin(
      () => () => configForm({ name: 'P', sections: [section('S', [fields.text('t', 'T')])] }).response(),
    );
    const { code, out } = await check(url, true, null);
    expect(code).toBe(1);
    const findings = (JSON.parse(out) as { findings: { check: string; message: string }[] }).findings;
    expect(findings[1]).toMatchObject({
      check: 'POST /register',
      message: expect.stringMatching(/self-signed certificate; .*--ca <file\.pem>.*"Plugin certificate"/),
    });
    expect(findings.filter((f) => f.message.includes('--ca'))).toHaveLength(1);
  });

  it('lists the names a certificate holds when none is the host', async () => {
    // A certificate for a DNS name only: Node's own message then lists no names at all.
    const pems = await generate([{ name: 'commonName', value: 'plugin.example' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'plugin.example' },
            { type: 2, value: 'www.plugin.example' },
          ],
        },
      ],
    });
    const named = path.join(dir, 'named.pem');
    writeFileSync(named, pems.cert);
    const url = await serve(express(), { cert: pems.cert, key: pems.private });
    const { out } = await check(url, true, named);
    expect((JSON.parse(out) as { findings: { check: string; message: string }[] }).findings[1]?.message).toMatch(
      /does not name 127\.0\.0\.1: it holds DNS:plugin\.example, DNS:www\.plugin\.example\. Use a URL with one of them/,
    );
  });

  it('fails a plugin that asks for events but accepts a wrongly signed one', async () => {
    const app = express();
    app.use(express.json());
    app.post('/register', (_req, res) => void res.json({ events: ['link.deleted'] }));
    app.post('/events', (_req, res) => void res.status(200).end());
    app.get(
      '/config',
      (_req, res) =>
        void res.json(configForm({ name: 'X', sections: [section('S', [fields.number('n', 'N')])] }).response({})),
    );
    app.post('/config', (_req, res) => void res.json({ ok: true }));
    app.delete('/config', (_req, res) => void res.json({ ok: true }));
    const report = JSON.parse((await check(await serve(app), true)).out) as Report;
    expect(
      report.findings.filter((f) => f.check.startsWith('POST /events')).map((f) => `${f.check} ${f.result}`),
    ).toEqual(['POST /events pass', 'POST /events signature fail']);
  });

  it("fails a /health slower than the spec's 5 s health timeout", async () => {
    const app = express();
    app.use(express.json());
    // Answers after 8 s, long after the check has stopped waiting (the timeout ends the call, not a clock read here).
    app.get('/health', (_req, res) => void setTimeout(() => res.json({ status: 'healthy' }), 8_000).unref());
    app.use(
      pluginMiddleware({
        store: new MemoryTokenStore(),
        getConfig: () => configForm({ name: 'P', sections: [section('S', [fields.text('t', 'T')])] }).response(),
        saveConfig: () => ({ ok: true }),
      }),
    );
    const { code, out } = await check(await serve(app), true);
    expect(code).toBe(1);
    expect((JSON.parse(out) as Report).findings.find((f) => f.check === 'GET /health')).toMatchObject({
      result: 'fail',
      message: expect.stringMatching(/within 5000 ms: past the spec's 5 s health timeout/),
    });
  });

  it('counts a condition naming a missing field with the structural errors, in the first report', async () => {
    const raw = {
      version: 1,
      name: 'Broken',
      sections: [
        {
          title: 'S',
          fields: [
            { type: 'text', key: 'a', label: 5 },
            { type: 'text', key: 'b', label: 'B', condition: { field: 'nope', equals: 1 } },
          ],
        },
      ],
    };
    const url = await sdkPlugin(() => () => raw as unknown as ReturnType<PluginHooks['getConfig']>);
    const { out } = await check(url);
    expect(out).toMatch(/GET \/config: FAIL — the service would refuse this schema \(2 problems\)/);
    expect(out).toMatch(/sections\[0\]\.fields\[1\]\.condition\.field/);
  });
});
