import type { ServerResponse } from 'node:http';
import { AppError, memoryLogger } from '@rolelink/runtime';
import { checkPluginHealth } from '../../services/plugin-broker/src/health/check-health';
import { startHarness, type Harness, type SeededLink } from '../../services/plugin-broker/test/support/harness';
import { report, type Figure } from './figures';

// Bad input from the other side: plugins answering GET /config and GET /health with oversized,
// slow, malformed, deeply nested and wrong-typed bodies. The broker (a real BullMQ worker calling a real
// HTTPS plugin) must answer every call with the §7 502 or the documented fallback view, and keep its memory
// bounded: it reads at most 50 KB of any plugin body. A plugin that never finishes its answer is cut off by
// the broker's own per-call timeout: the plugin's answer is still open when the broker has answered, and the
// broker names its timeout as the cause (not the caller's far longer deadline, and no wall-clock bound).

const TIMEOUT_MS = 1_000;
/** How long a call's answer took, reported as a figure against this goal (never asserted: load moves it). */
const MARGIN_MS = 1_500;

/**
 * Resolves with 'late' after `ms`. Raced in this process against a check whose own timer is far shorter, it
 * can only win if that timer never fired: timers of one event loop fire in order however loaded the machine.
 */
const lateAfter = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  return { late, cancel: () => clearTimeout(timer) };
};

/** `hangs`: the plugin never finishes its answer, so only the broker's per-call timeout can end the call. */
type Hostile = [name: string, answer: (res: ServerResponse) => void, hangs: boolean];

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
  ['a 20 MB body', (res) => json(res, BIG), false],
  ['a body trickled at 1 byte/s', (res) => slowly(res, '{"version":1,"name":"slow","sections":[]}'), true],
  ['headers, then nothing', (res) => res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders(), true],
  ['no answer at all', () => undefined, true],
  ['malformed JSON', (res) => json(res, '{"version":1,"name":"broken",'), false],
  [
    'HTML',
    (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><script>alert(1)</script></html>'),
    false,
  ],
  ['JSON nested 100,000 deep', (res) => json(res, DEEP), false],
  ['JSON nested 1,000 deep inside a field', (res) => json(res, DEEP_FIELD), false],
  [
    'wrong types everywhere',
    (res) => json(res, JSON.stringify({ version: '1', name: 42, sections: 'all', values: [] })),
    false,
  ],
  ['40,000 fields (far over the 50 KB cap)', (res) => json(res, MANY), false],
  [
    'a 2 GB Content-Length that never comes',
    (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 31) }).write('{'),
    true,
  ],
  [
    'a gzip bomb header on plain text',
    (res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('not gzip at all'),
    false,
  ],
  [
    'a 500 with a huge error',
    (res) => res.writeHead(500, { 'content-type': 'application/json' }).end(HUGE_ERROR),
    false,
  ],
  ['a redirect', (res) => res.writeHead(302, { location: 'https://127.0.0.1:1/' }).end(), false],
  ['null', (res) => json(res, 'null'), false],
  ['an empty 200', (res) => res.writeHead(200).end(), false],
];

let h: Harness;
let link: SeededLink;
const brokerLog = memoryLogger('plugin-broker', 'info');
/** What the broker logged of its own per-call timeout since line `from`. */
const timeoutsLogged = (from: number) =>
  brokerLog.lines
    .slice(from)
    .filter(
      (l) => /^plugin [a-z-]+ failed$/.test(String(l.message)) && String(l.error).includes('did not answer within'),
    );
const rows: { call: string; hostile: string; outcome: string; ms: number }[] = [];
let peakRssMiB = 0;
let startRssMiB = 0;
const sampler = setInterval(() => (peakRssMiB = Math.max(peakRssMiB, process.memoryUsage().rss / 2 ** 20)), 20);

beforeAll(async () => {
  h = await startHarness({
    allowHosts: ['127.0.0.1'],
    logger: brokerLog.logger,
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
  it.each(HOSTILE)('GET /config answering %s: a 502 or the fallback view', async (name, answer, hangs) => {
    let plugin: ServerResponse | undefined;
    h.plugin.on('GET /config', (_req, res) => answer((plugin = res)));
    const logged = brokerLog.lines.length;
    const started = performance.now();
    const outcome = await h.client.fetchConfig(link.linkId, { refresh: true }).then(
      (view) =>
        `view (${view.source}${'fallback_reason' in view && view.fallback_reason ? `: ${view.fallback_reason}` : ''})`,
      (err: unknown) => (err instanceof AppError ? `${err.status} ${err.message}` : `threw ${String(err)}`),
    );
    const ms = performance.now() - started;
    rows.push({ call: 'GET /config', hostile: name, outcome, ms });
    expect(outcome).toMatch(/^(502 |view \(fallback)/);
    if (hangs) {
      // The broker answered while the plugin's answer was still open, because its own timeout fired.
      expect(plugin?.writableEnded).toBe(false);
      expect(timeoutsLogged(logged)).toEqual([
        expect.objectContaining({ error: `plugin did not answer within ${TIMEOUT_MS} ms` }),
      ]);
    }
  });

  it.each(HOSTILE)('GET /health answering %s: recorded as not healthy', async (name, answer, hangs) => {
    let plugin: ServerResponse | undefined;
    h.plugin.on('GET /health', (_req, res) => answer((plugin = res)));
    const started = performance.now();
    const sentinel = lateAfter(20 * TIMEOUT_MS);
    const result = await Promise.race([checkPluginHealth(h.ctx, h.plugin.url), sentinel.late]).finally(sentinel.cancel);
    const ms = performance.now() - started;
    if (result === 'late') throw new Error(`GET /health answering ${name}: no answer before 20 times its timeout`);
    rows.push({ call: 'GET /health', hostile: name, outcome: result.status, ms });
    expect(result.status).not.toBe('healthy');
    if (hangs) {
      expect(plugin?.writableEnded).toBe(false);
      expect(result.detail).toEqual({ reason: 'timeout', message: `plugin did not answer within ${TIMEOUT_MS} ms` });
    }
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
