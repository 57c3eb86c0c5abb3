import type { ServerResponse } from 'node:http';
import { AppError } from '@rolelink/runtime';
import { checkPluginHealth } from '../../services/plugin-broker/src/health/check-health';
import { startHarness, type Harness, type SeededLink } from '../../services/plugin-broker/src/testing/harness';
import { report, type Figure } from './figures';

// Bad input from the other side: plugins answering GET /config and GET /health with oversized,
// slow, malformed, deeply nested and wrong-typed bodies. The broker (a real BullMQ worker calling a real
// HTTPS plugin) must answer every call within its timeout plus a small margin, with the §7 502 or the
// documented fallback view, and keep its memory bounded: it reads at most 50 KB of any plugin body.

const TIMEOUT_MS = 1_000;
/** The broker's answer may take the call's timeout plus queue hand-offs on a loaded machine. */
const MARGIN_MS = 1_500;

type Hostile = [name: string, answer: (res: ServerResponse) => void];

const slowly = (res: ServerResponse, text: string) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  let i = 0;
  const t = setInterval(() => {
    if (res.destroyed || i >= text.length) return clearInterval(t);
    res.write(text[i++]!);
  }, 1_000);
  res.on('close', () => clearInterval(t));
};
const json = (res: ServerResponse, body: string | Buffer) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
// The big bodies are built once, before memory is sampled: the plugin shares this process with the broker,
// and only the broker's side should show in the RSS figure.
const BIG = Buffer.from(JSON.stringify({ version: 1, name: 'x'.repeat(20 * 1024 * 1024) }));
const DEEP = Buffer.from(nested(100_000));
const DEEP_FIELD = Buffer.from(
  JSON.stringify({ version: 1, name: 'deep', sections: [{ title: 't', fields: [JSON.parse(nested(1_000))] }] }),
);
const MANY = Buffer.from(
  JSON.stringify({
    version: 1,
    name: 'many',
    sections: [
      { title: 't', fields: Array.from({ length: 40_000 }, (_, i) => ({ type: 'text', key: `k${i}`, label: 'l' })) },
    ],
  }),
);
const HUGE_ERROR = Buffer.from(JSON.stringify({ error: 'e'.repeat(5 * 1024 * 1024) }));

const HOSTILE: Hostile[] = [
  ['a 20 MB body', (res) => json(res, BIG)],
  ['a body trickled at 1 byte/s', (res) => slowly(res, '{"version":1,"name":"slow","sections":[]}')],
  ['headers, then nothing', (res) => res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders()],
  ['no answer at all', () => undefined],
  ['malformed JSON', (res) => json(res, '{"version":1,"name":"broken",')],
  ['HTML', (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><script>alert(1)</script></html>')],
  ['JSON nested 100,000 deep', (res) => json(res, DEEP)],
  ['JSON nested 1,000 deep inside a field', (res) => json(res, DEEP_FIELD)],
  [
    'wrong types everywhere',
    (res) => json(res, JSON.stringify({ version: '1', name: 42, sections: 'all', values: [] })),
  ],
  ['40,000 fields (far over the 50 KB cap)', (res) => json(res, MANY)],
  [
    'a 2 GB Content-Length that never comes',
    (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 31) }).write('{'),
  ],
  [
    'a gzip bomb header on plain text',
    (res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('not gzip at all'),
  ],
  ['a 500 with a huge error', (res) => res.writeHead(500, { 'content-type': 'application/json' }).end(HUGE_ERROR)],
  ['a redirect', (res) => res.writeHead(302, { location: 'https://127.0.0.1:1/' }).end()],
  ['null', (res) => json(res, 'null')],
  ['an empty 200', (res) => res.writeHead(200).end()],
];

let h: Harness;
let link: SeededLink;
const rows: { call: string; hostile: string; outcome: string; ms: number }[] = [];
let peakRssMiB = 0;
let startRssMiB = 0;
const sampler = setInterval(() => (peakRssMiB = Math.max(peakRssMiB, process.memoryUsage().rss / 2 ** 20)), 20);

beforeAll(async () => {
  h = await startHarness({
    allowHosts: ['127.0.0.1'],
    timeouts: {
      register: TIMEOUT_MS,
      fetchConfig: TIMEOUT_MS,
      submitConfig: TIMEOUT_MS,
      deleteConfig: TIMEOUT_MS,
      health: TIMEOUT_MS,
    },
    deadlines: { register: 20_000, fetchConfig: 20_000, submitConfig: 20_000 },
  });
  link = await h.seedLink();
  global.gc?.();
  startRssMiB = process.memoryUsage().rss / 2 ** 20;
  peakRssMiB = startRssMiB;
});
afterAll(async () => {
  clearInterval(sampler);
  await h?.close();
  const late = rows.filter((r) => r.ms > TIMEOUT_MS + MARGIN_MS).length;
  const figures: Figure[] = [
    { scenario: 'hostile-plugins', name: 'hostile answers tried (config and health)', value: rows.length },
    {
      scenario: 'hostile-plugins',
      name: 'calls answered later than timeout + margin',
      value: late,
      goal: '0',
      met: late === 0,
    },
    {
      scenario: 'hostile-plugins',
      name: 'slowest answer (ms)',
      value: Math.round(Math.max(...rows.map((r) => r.ms))),
      goal: `≤ ${TIMEOUT_MS + MARGIN_MS}`,
    },
    {
      scenario: 'hostile-plugins',
      name: 'broker process RSS growth (MiB, peak over start)',
      value: (peakRssMiB - startRssMiB).toFixed(1),
      goal: '≤ 100',
      met: peakRssMiB - startRssMiB <= 100,
    },
  ];
  report(figures);
  for (const r of rows)
    process.stdout.write(`[hostile] ${r.call} | ${r.hostile} | ${r.outcome} | ${Math.round(r.ms)} ms\n`);
});

describe('hostile plugins: the broker stays within its timeouts and memory', () => {
  it.each(HOSTILE)('GET /config answering %s: a 502 or the fallback view, in time', async (name, answer) => {
    h.plugin.on('GET /config', (_req, res) => answer(res));
    const started = performance.now();
    const outcome = await h.client.fetchConfig(link.linkId, { refresh: true }).then(
      (view) =>
        `view (${view.source}${'fallback_reason' in view && view.fallback_reason ? `: ${view.fallback_reason}` : ''})`,
      (err: unknown) => (err instanceof AppError ? `${err.status} ${err.message}` : `threw ${String(err)}`),
    );
    const ms = performance.now() - started;
    rows.push({ call: 'GET /config', hostile: name, outcome, ms });
    expect(outcome).toMatch(/^(502 |view \(fallback)/);
    expect(ms).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
  });

  it.each(HOSTILE)('GET /health answering %s: recorded as not healthy, in time', async (name, answer) => {
    h.plugin.on('GET /health', (_req, res) => answer(res));
    const started = performance.now();
    const result = await checkPluginHealth(h.ctx, h.plugin.url);
    const ms = performance.now() - started;
    rows.push({ call: 'GET /health', hostile: name, outcome: result.status, ms });
    expect(result.status).not.toBe('healthy');
    expect(ms).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS);
  });

  it('still serves a well-behaved plugin afterwards', async () => {
    h.plugin.on('GET /config', (_req, res) =>
      json(
        res,
        JSON.stringify({
          version: 1,
          name: 'Fine',
          sections: [{ title: 'Main', fields: [{ type: 'text', key: 'a', label: 'A' }] }],
        }),
      ),
    );
    const view = await h.client.fetchConfig(link.linkId, { refresh: true });
    expect(view).toMatchObject({ ui_mode: 'schema', source: 'plugin' });
  });
});
