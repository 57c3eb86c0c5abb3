import http from 'node:http';
import fc from 'fast-check';
import { startApi, type RunningApi } from '../../bench/support/api-process';
import { createTestDb, type TestDb } from '../support/db';
import { seedLink, type SeededLink } from '../support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';
import { report, SCALE } from './figures';

// Bad input: random and hostile requests against the User Management API running as a real
// process (so a crash is a restart we count, not a dead test runner). Every answer must be below 500 and,
// on an error, in the §7 shape `{ statusCode, message }` whose statusCode is the HTTP status (the 409 hold
// has its own §4.1 shape). Requests come from fast-check with a fixed seed, so a failure reproduces.

const REQUESTS = SCALE === 'full' ? 100_000 : 3_000;
const IN_FLIGHT = 16;
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

type Body =
  | { kind: 'none' }
  | { kind: 'text'; text: string }
  | { kind: 'ids'; count: number; digits: number }
  | { kind: 'nested'; depth: number }
  | { kind: 'bytes'; size: number };
type Req = { method: string; path: string; headers: Record<string, string>; body: Body };

let db: TestDb;
let api: RunningApi;
let prefix: string;
let links: SeededLink[];
let restarts = 0;

async function start(): Promise<RunningApi> {
  return startApi({ DATABASE_URL: db.url, REDIS_URL, QUEUE_PREFIX: prefix });
}

beforeAll(async () => {
  db = await createTestDb();
  prefix = testQueuePrefix();
  links = [await seedLink(db, { plan: 'free' }), await seedLink(db, { plan: 'premium' })];
  api = await start();
}, 15 * 60_000); // startApi's own wait fails a start-up that stops moving; this only bounds a slow one
afterAll(async () => {
  agent.destroy();
  await api?.stop();
  await dropPrefix(prefix);
  await db?.drop();
});

// ---- request generation ------------------------------------------------------------------------------

const digits = (n: number) => fc.stringMatching(new RegExp(`^[1-9][0-9]{${n - 1}}$`));
const anyId = fc.oneof(
  digits(17),
  digits(18),
  digits(19),
  digits(20),
  digits(16),
  digits(21),
  fc.constant('0'),
  fc.constant('-1'),
  fc.constant('1e18'),
  fc.constant('18446744073709551616'),
  fc.string({ maxLength: 30 }),
  fc.constant('%00'),
  fc.constant('..'),
);
const linkPath = fc.constantFrom(0, 1).map((i) => `/api/role-link/${links[i]!.guildId}/${links[i]!.roleId}`);
const anyBase = fc.oneof(
  { weight: 6, arbitrary: linkPath },
  {
    weight: 2,
    arbitrary: fc
      .tuple(anyId, anyId)
      .map(([g, r]) => `/api/role-link/${encodeURIComponent(g)}/${encodeURIComponent(r)}`),
  },
  { weight: 1, arbitrary: fc.constant('/api/role-link') },
);
const suffix = fc.oneof(
  fc.constantFrom(
    '/users',
    '/users/upload',
    '/users/',
    '//users',
    '/users/upload/x/chunk',
    '/users/upload/00000000-0000-4000-8000-000000000000/commit',
    '/USERS',
    '/users?dry_run=1',
    '/users/%2e%2e',
  ),
  anyId.map((id) => `/users/${encodeURIComponent(id)}`),
  fc.uuid().map((u) => `/users/upload/${u}/chunk`),
  fc.uuid().map((u) => `/users/upload/${u}/commit`),
  fc.uuid().map((u) => `/users/upload/${u}`),
  fc.webPath().map((p) => p),
);
const anyPath = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(anyBase, suffix).map(([b, s]) => b + s) },
  { weight: 1, arbitrary: fc.webPath().map((p) => p || '/') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => `/api/${encodeURIComponent(s)}`) },
);
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE') },
);
const authFor = (path: string) => {
  const own = links.find((l) => path.includes(`${l.guildId}/${l.roleId}`));
  const valid = own?.token ?? links[0]!.token;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Token ${valid}`) },
    { weight: 1, arbitrary: fc.constant(`Token ${links.find((l) => l !== own)?.token ?? links[1]!.token}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `Bearer ${valid}`,
        'Token',
        'Token ',
        `token ${valid}`,
        `Token  ${valid}`,
        `Token ${valid}x`,
        `Basic dXNlcjpwYXNz`,
        `Token ${'a'.repeat(8000)}`,
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)) },
    { weight: 1, arbitrary: fc.constant('') },
  );
};
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  '',
  'application/*',
);
const jsonValue = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc
      .array(fc.oneof(digits(18), digits(17), digits(20), digits(16), digits(21), fc.integer().map(String)), {
        maxLength: 50,
      })
      .map((ids) => ({ kind: 'text' as const, text: JSON.stringify(ids) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.boolean(), fc.string()), { maxLength: 20 })
      .map((a) => ({ kind: 'text' as const, text: JSON.stringify(a) })),
  },
  { weight: 2, arbitrary: jsonValue.map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ kind: 'text' as const, text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('[', '{"a":', '["1"', '[1,]', 'null', '""', 'true', '1e999', '[\u0000]', '\ufeff[]', '[]]')
      .map((text) => ({ kind: 'text' as const, text })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1_000, 10_001).map((count) => ({ kind: 'ids' as const, count, digits: 18 })),
  },
  { weight: 1, arbitrary: fc.constantFrom(10, 1_000).map((depth) => ({ kind: 'nested' as const, depth })) },
);

/** The heaviest bodies, sent a fixed number of times at any scale rather than at the generator's whim. */
function heavyRequests(): Req[] {
  const heavy: Body[] = [
    { kind: 'ids', count: 100_000, digits: 18 },
    { kind: 'ids', count: 100_001, digits: 18 },
    { kind: 'ids', count: 1_000_000, digits: 18 },
    { kind: 'nested', depth: 100_000 },
    { kind: 'bytes', size: 3 * 1024 * 1024 },
    { kind: 'bytes', size: 12 * 1024 * 1024 },
  ];
  const out: Req[] = [];
  // Smoke scale sends them to one link only (they dominate its time).
  for (const l of SCALE === 'full' ? links : links.slice(0, 1)) {
    const base = `/api/role-link/${l.guildId}/${l.roleId}`;
    for (const b of heavy) {
      for (const [m, suffix] of [
        ['PUT', '/users'],
        ['POST', '/users/upload/00000000-0000-4000-8000-000000000000/chunk'],
        ['POST', '/users/100000000000000001'],
      ] as const) {
        out.push({
          method: m,
          path: base + suffix,
          headers: { authorization: `Token ${l.token}`, 'content-type': 'application/json' },
          body: b,
        });
      }
    }
  }
  return out;
}
const request: fc.Arbitrary<Req> = fc
  .tuple(method, anyPath)
  .chain(([m, path]) =>
    fc.record({
      method: fc.constant(m),
      path: fc.constant(path),
      auth: fc.option(authFor(path), { freq: 12, nil: undefined }),
      contentType: fc.option(contentType, { freq: 4, nil: undefined }),
      confirm: fc.option(
        fc.oneof(
          fc.uuid(),
          fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        ),
        { freq: 1, nil: undefined },
      ),
      body,
    }),
  )
  .map(({ method: m, path, auth, contentType: ct, confirm, body: b }) => {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (ct !== undefined && ct !== '') headers['content-type'] = ct;
    else if (b.kind !== 'none') headers['content-type'] = 'application/json';
    if (confirm !== undefined) headers['x-rolelink-confirm'] = confirm;
    return { method: m, path, headers, body: b };
  });

/** Huge bodies are described by the generator and built only when sent (a 10⁶-element array is ~22 MB). */
function materialize(b: Body): Buffer | undefined {
  switch (b.kind) {
    case 'none':
      return undefined;
    case 'text':
      return Buffer.from(b.text);
    case 'ids': {
      const parts = new Array<string>(b.count);
      for (let i = 0; i < b.count; i++) parts[i] = `"${(100000000000000000n + BigInt(i)).toString()}"`;
      return Buffer.from(`[${parts.join(',')}]`);
    }
    case 'nested':
      return Buffer.from('['.repeat(b.depth) + ']'.repeat(b.depth));
    case 'bytes':
      return Buffer.alloc(b.size, 0x5b); // '[' × size: a huge body that is also no JSON
  }
}

// ---- sending and judging -----------------------------------------------------------------------------

type Outcome = { status: number; body: string } | { error: string };
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

// "No answer" means the API stopped answering, not that one request was slow: with 16 requests in flight
// (megabyte bodies among them) at load 20, a request could wait more than a fixed 30 s behind the others
// and count as a violation (7 such timeouts were reported in one run). A request fails only after the API
// as a whole has sent no byte for STALL_MS while it waited; a hang still fails once the other lanes are done.
const STALL_MS = 120_000;
let lastAnswerAt = Date.now();
const answered = () => void (lastAnswerAt = Date.now());

function send(req: Req): Promise<Outcome> {
  const payload = materialize(req.body);
  return new Promise((resolve) => {
    const sentAt = Date.now();
    const r = http.request(
      {
        host: '127.0.0.1',
        port: api.port,
        method: req.method,
        path: req.path,
        agent,
        headers: { ...req.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        answered();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          answered();
          chunks.push(c);
        });
        res.on('end', () => {
          clearInterval(watch);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (e) => {
          clearInterval(watch);
          resolve({ error: e.message });
        });
      },
    );
    const watch = setInterval(() => {
      if (Date.now() - Math.max(sentAt, lastAnswerAt) > STALL_MS)
        r.destroy(new Error(`timeout: the API answered nothing for ${STALL_MS / 1000} s`));
    }, 1_000);
    r.on('error', (e) => {
      clearInterval(watch);
      resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message });
    });
    r.end(payload);
  });
}

/** Why an answer breaks the contract, or null. Probes and /metrics are not API routes and keep their formats. */
function violation(req: Req, out: Outcome): string | null {
  if ('error' in out) return `no answer: ${out.error}`;
  if (out.status >= 500) return `status ${out.status}`;
  if (out.status < 400 || req.method === 'HEAD') return null;
  if (/^\/(healthz|readyz|livez|metrics)\b/.test(req.path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(out.body);
  } catch {
    return `status ${out.status} with a body that is not JSON: ${out.body.slice(0, 80)}`;
  }
  const p = parsed as { statusCode?: unknown; message?: unknown; errors?: { error?: unknown } };
  if (out.status === 409 && p.errors?.error === 'confirm_required') return null;
  if (p.statusCode !== out.status || typeof p.message !== 'string' || p.message.length === 0)
    return `status ${out.status} not in the §7 shape: ${out.body.slice(0, 120)}`;
  return null;
}

describe(`User Management API under ${REQUESTS.toLocaleString('en-US')} fuzzed requests`, () => {
  it(
    'never answers 5xx, always answers errors in the §7 shape, and never restarts',
    async () => {
      const requests = [...heavyRequests(), ...fc.sample(request, { numRuns: REQUESTS, seed: SEED })];
      const statuses = new Map<number, number>();
      const violations: { req: string; why: string }[] = [];
      let fivexx = 0;
      let unshaped = 0;
      let next = 0;
      const started = Date.now();

      const lane = async (): Promise<void> => {
        while (next < requests.length) {
          const req = requests[next++]!;
          const out = await send(req);
          if (api.child.exitCode !== null || api.child.signalCode !== null) {
            restarts++;
            violations.push({
              req: `${req.method} ${req.path}`,
              why: `API process exited (${api.child.exitCode ?? api.child.signalCode})`,
            });
            api = await start();
          }
          if ('status' in out) statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
          const why = violation(req, out);
          if (why) {
            if ('status' in out && out.status >= 500) fivexx++;
            else unshaped++;
            if (violations.length < 20)
              violations.push({ req: `${req.method} ${req.path.slice(0, 120)} [${req.body.kind}]`, why });
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      const seconds = (Date.now() - started) / 1000;

      report([
        {
          scenario: 'api-fuzz',
          name: 'requests sent',
          value: requests.length,
          goal: SCALE === 'full' ? '≥ 100,000' : 'smoke',
          met: SCALE === 'full' ? requests.length >= 100_000 : undefined,
        },
        { scenario: 'api-fuzz', name: '5xx answers', value: fivexx, goal: '0', met: fivexx === 0 },
        {
          scenario: 'api-fuzz',
          name: 'answers not in the §7 shape (or no answer)',
          value: unshaped,
          goal: '0',
          met: unshaped === 0,
        },
        { scenario: 'api-fuzz', name: 'API process restarts', value: restarts, goal: '0', met: restarts === 0 },
        { scenario: 'api-fuzz', name: 'requests per second', value: Math.round(requests.length / seconds) },
        {
          scenario: 'api-fuzz',
          name: 'statuses',
          value: [...statuses.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([s, n]) => `${s}×${n}`)
            .join(' '),
        },
      ]);
      expect(violations).toEqual([]);
    },
    30 * 60_000,
  );

  it('still answers a valid request afterwards, and the list holds only valid IDs', async () => {
    const l = links[1]!;
    const res = await fetch(`${api.origin}/api/role-link/${l.guildId}/${l.roleId}/users`, {
      headers: { authorization: `Token ${l.token}` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: string[] };
    expect(data.every((id) => /^[0-9]{17,20}$/.test(id))).toBe(true);
  });
});
