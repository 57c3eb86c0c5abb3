import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import type { RequestListener } from 'node:http';
import { claimIdempotencyKey } from '@rolelink/db/list';
import { silentLogger } from '@rolelink/runtime';
import { createApi } from '../src/app';
import {
  auth,
  startApiHarness,
  type ApiHarness,
  bodyOf,
  type DryRunBody,
  type UploadCreatedBody,
} from '../../../test/support/api';
import { seedLink, snowflake, tamperedToken, userIds, type SeededLink } from '../../../test/support/fixtures';

/**
 * The OpenAPI document served at /openapi.json against the API's real answers: every request below
 * names the operation it calls; its status must be documented for that operation and its body must
 * match the documented schema. At the end, every documented (operation, status) must have been seen,
 * so the document promises nothing the API does not answer. The same holds for the response headers
 * the document names (ETag, Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy): one that
 * an answer carries must be documented for its (operation, status), and every documented one must be seen.
 */

let h: ApiHarness;
type Documented = { headers?: Record<string, { $ref: string }>; content: { 'application/json': { schema: object } } };
type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; parameters: { name: string; in: string }[]; responses: Record<string, Documented> }
    >
  >;
  components: { schemas: Record<string, object> };
};
let doc: Doc;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const seen = new Set<string>();

/** The harness's app with a per-token limit of one request a minute, so the second request is a 429. */
let limited: RequestListener;

beforeAll(async () => {
  h = await startApiHarness();
  limited = createApi({
    pool: h.db.pool,
    sync: h.sync,
    logger: silentLogger(),
    rateLimit: { redis: h.redis, prefix: h.prefix, windowMs: 60_000, perPlan: { free: 1, premium: 1 } },
  }).listener;
  doc = (await request(h.app).get('/openapi.json').expect(200).expect('Content-Type', /json/)).body as Doc;
  ajv.addSchema({ $id: 'doc', components: doc.components });
});
afterAll(() => h.close());

function operation(id: string) {
  for (const methods of Object.values(doc.paths))
    for (const op of Object.values(methods)) if (op.operationId === id) return op;
  throw new Error(`no operation ${id} in the document`);
}

/** Checks one real answer against the document. */
function conforms(id: string, res: request.Response): void {
  const documented = operation(id).responses[String(res.status)];
  if (!documented)
    throw new Error(`${id} answered ${res.status}, which the document does not list: ${JSON.stringify(res.body)}`);
  const schema = JSON.parse(
    JSON.stringify(documented.content['application/json'].schema).replaceAll('"#/components/', '"doc#/components/'),
  ) as object;
  const validate = ajv.compile(schema);
  if (!validate(res.body))
    throw new Error(
      `${id} ${res.status} body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`,
    );
  seen.add(`${id} ${res.status}`);
  const headers = Object.keys(documented.headers ?? {});
  for (const name of headers)
    if (res.headers[name.toLowerCase()] !== undefined) seen.add(`${id} ${res.status} ${name}`);
  // The RateLimit pair is on every answer a limited app counts; the document names it on the 429.
  for (const name of ['ETag', 'Idempotent-Replayed', 'Retry-After']) {
    if (res.headers[name.toLowerCase()] !== undefined && !headers.includes(name))
      throw new Error(`${id} ${res.status} carries ${name}, which the document does not list for it`);
  }
}

const base = (l: { guildId: string; roleId: string }) => `/api/role-link/${l.guildId}/${l.roleId}/users`;
const json = (r: request.Test, body: unknown) => r.set('Content-Type', 'application/json').send(JSON.stringify(body));
const UNKNOWN_UPLOAD = '00000000-0000-4000-8000-000000000000';

type Call = { id: string; method: 'get' | 'put' | 'post' | 'delete'; path: (l: SeededLink) => string; body?: unknown };
const CALLS: Call[] = [
  { id: 'listUsers', method: 'get', path: base },
  { id: 'replaceUsers', method: 'put', path: base, body: userIds(2) },
  { id: 'createUpload', method: 'post', path: (l) => `${base(l)}/upload` },
  { id: 'addChunk', method: 'post', path: (l) => `${base(l)}/upload/${UNKNOWN_UPLOAD}/chunk`, body: userIds(2) },
  { id: 'commitUpload', method: 'post', path: (l) => `${base(l)}/upload/${UNKNOWN_UPLOAD}/commit` },
  { id: 'cancelUpload', method: 'delete', path: (l) => `${base(l)}/upload/${UNKNOWN_UPLOAD}` },
  { id: 'hasUser', method: 'get', path: (l) => `${base(l)}/${userIds(1)[0]}` },
  { id: 'addUser', method: 'post', path: (l) => `${base(l)}/${userIds(1)[0]}` },
  { id: 'removeUser', method: 'delete', path: (l) => `${base(l)}/${userIds(1)[0]}` },
];

function send(
  call: Call,
  link: SeededLink,
  headers: Record<string, string>,
  pathOf = call.path,
  app: RequestListener = h.app,
): request.Test {
  const r = request(app)[call.method](pathOf(link)).set(headers);
  return call.body === undefined ? r : json(r, call.body);
}

/** Every asset the page names, resolved as a browser resolves it against the page's own path, must load. */
async function expectAssetsLoad(pagePath: string, html: string): Promise<void> {
  const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map(
    (m) => new URL(m[1] as string, `http://api.test${pagePath}`).pathname,
  );
  expect(assets.length).toBeGreaterThanOrEqual(3);
  for (const asset of assets) await request(h.app).get(asset).expect(200);
}

describe('/openapi.json against the running API', () => {
  it('is an OpenAPI 3.1 document whose reference page loads its assets from this origin under a CSP', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const page = await request(h.app).get('/reference').expect(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    await expectAssetsLoad('/reference', page.text);
  });

  it('sends /reference/ (trailing slash) to the page whose assets load, instead of a blank page', async () => {
    const res = await request(h.app).get('/reference/?x=1').expect(301);
    const target = new URL(res.headers.location as string, 'http://api.test/reference/?x=1');
    expect(target.pathname + target.search).toBe('/reference?x=1');
    const page = await request(h.app).get(target.pathname).expect(200);
    await expectAssetsLoad(target.pathname, page.text);
  });

  it('documents the authentication and link answers of every operation as they are', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const elsewhere = { ...link, guildId: snowflake(), roleId: snowflake() };
    for (const call of CALLS) {
      conforms(call.id, await send(call, link, {}));
      conforms(call.id, await send(call, link, { Authorization: `Bearer ${link.token}` }));
      conforms(call.id, await send(call, link, auth(tamperedToken(link.token))));
      conforms(call.id, await send(call, elsewhere, auth(link.token)));
      conforms(call.id, await send(call, { ...link, guildId: 'abc' }, auth(link.token)));
    }
  });

  it('documents every success, hold and refusal of the list routes as they are', async () => {
    const free = await seedLink(h.db, { plan: 'free' });
    const link = await seedLink(h.db, { plan: 'premium' });
    const t = auth(link.token);
    const users = base(link);
    const a = userIds(1)[0]!;

    conforms('replaceUsers', await json(request(h.app).put(users).set(t), userIds(40)));
    conforms('replaceUsers', await json(request(h.app).put(users).set(t), ['12']));
    conforms('replaceUsers', await request(h.app).put(users).set(t).set('Content-Type', 'text/plain').send('x'));
    conforms('replaceUsers', await json(request(h.app).put(base(free)).set(auth(free.token)), userIds(10_001)));
    conforms('replaceUsers', await json(request(h.app).put(users).set(t), userIds(10)));
    conforms('replaceUsers', await json(request(h.app).put(users).set(t).set('If-Match', '"0.0"'), userIds(40)));
    conforms(
      'replaceUsers',
      await json(request(h.app).put(users).set(t).set('Idempotency-Key', 'openapi-a'), userIds(40)),
    );
    conforms(
      'replaceUsers',
      await json(request(h.app).put(users).set(t).set('Idempotency-Key', 'openapi-a'), userIds(41)),
    );
    conforms('listUsers', await request(h.app).get(users).set(t));

    conforms('hasUser', await request(h.app).get(`${users}/${a}`).set(t));
    conforms('hasUser', await request(h.app).get(`${users}/12`).set(t));
    conforms('addUser', await request(h.app).post(`${users}/${a}`).set(t));
    conforms('addUser', await request(h.app).post(`${users}/12`).set(t));
    conforms('removeUser', await request(h.app).delete(`${users}/${a}`).set(t));

    conforms(
      'createUpload',
      await request(h.app)
        .post(`${base(free)}/upload`)
        .set(auth(free.token)),
    );
    for (const id of ['addChunk', 'commitUpload', 'cancelUpload']) {
      const call = CALLS.find((c) => c.id === id)!;
      conforms(id, await send(call, free, auth(free.token)));
      conforms(id, await send(call, link, t));
      conforms(id, await send(call, link, t, (l) => call.path(l).replace(UNKNOWN_UPLOAD, 'not-a-uuid')));
    }
    const open = async () => {
      const res = await request(h.app).post(`${users}/upload`).set(t);
      conforms('createUpload', res);
      return `${users}/upload/${bodyOf<UploadCreatedBody>(res).data.upload_id}`;
    };
    const session = await open();
    conforms('addChunk', await json(request(h.app).post(`${session}/chunk`).set(t), userIds(40)));
    conforms(
      'addChunk',
      await request(h.app).post(`${session}/chunk`).set(t).set('Content-Type', 'text/plain').send('x'),
    );
    conforms('commitUpload', await request(h.app).post(`${session}/commit`).set(t));
    const shrinking = await open(); // no chunks: would empty the list, so it is held
    conforms('commitUpload', await request(h.app).post(`${shrinking}/commit`).set(t));
    conforms('commitUpload', await request(h.app).post(`${shrinking}/commit`).set(t).set('If-Match', '"0.0"'));
    conforms(
      'commitUpload',
      await request(h.app).post(`${shrinking}/commit`).set(t).set('Idempotency-Key', 'openapi-b'),
    );
    conforms(
      'commitUpload',
      await request(h.app)
        .post(`${shrinking}/commit`)
        .set(t)
        .set('Idempotency-Key', 'openapi-b')
        .set('X-RoleLink-Confirm', '00000000-0000-4000-8000-000000000000'),
    );
    conforms('cancelUpload', await request(h.app).delete(shrinking).set(t));
  });

  it('documents dry runs, list versions, replays and keys still running as they are', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    const t = auth(link.token);
    const users = base(link);
    expect(operation('replaceUsers').parameters.map((p) => `${p.in} ${p.name}`)).toContain('query dry_run');
    expect(operation('commitUpload').parameters.map((p) => `${p.in} ${p.name}`)).toContain('query dry_run');

    const dry = await json(request(h.app).put(`${users}?dry_run=true`).set(t), userIds(5));
    conforms('replaceUsers', dry);
    expect(bodyOf<DryRunBody>(dry).data).toMatchObject({ dry_run: true, status: 200, outcome: 'replaced', adds: 5 });
    conforms('replaceUsers', await json(request(h.app).put(users).set(t), userIds(30)));

    const [a, b] = userIds(2) as [string, string];
    for (const [id, method] of [
      ['addUser', 'post'],
      ['removeUser', 'delete'],
    ] as const) {
      const first = await request(h.app)[method](`${users}/${a}`).set(t).set('Idempotency-Key', `openapi-${id}`);
      conforms(id, first);
      const replay = await request(h.app)[method](`${users}/${a}`).set(t).set('Idempotency-Key', `openapi-${id}`);
      conforms(id, replay);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      conforms(id, await request(h.app)[method](`${users}/${b}`).set(t).set('Idempotency-Key', `openapi-${id}`));
      // A claim with no answer yet, as while the first request runs.
      await claimIdempotencyKey(h.db.pool, link.linkId, `openapi-running-${id}`, Buffer.alloc(0));
      conforms(
        id,
        await request(h.app)[method](`${users}/${a}`).set(t).set('Idempotency-Key', `openapi-running-${id}`),
      );
    }
    const put = () => json(request(h.app).put(users).set(t).set('Idempotency-Key', 'openapi-put'), userIds(30));
    conforms('replaceUsers', await put());
    conforms('replaceUsers', await put());
    for (const [key, extra, body] of [
      ['openapi-hold', {}, []],
      ['openapi-412', { 'If-Match': '"0.0"' }, userIds(30)],
    ] as const) {
      const again = () => json(request(h.app).put(users).set(t).set(extra).set('Idempotency-Key', key), body);
      conforms('replaceUsers', await again());
      const replay = await again();
      conforms('replaceUsers', replay);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    await claimIdempotencyKey(h.db.pool, link.linkId, 'openapi-running-put', Buffer.alloc(0));
    conforms(
      'replaceUsers',
      await json(request(h.app).put(users).set(t).set('Idempotency-Key', 'openapi-running-put'), userIds(30)),
    );

    const opened = await request(h.app).post(`${users}/upload`).set(t);
    const session = `${users}/upload/${bodyOf<UploadCreatedBody>(opened).data.upload_id}`;
    conforms('addChunk', await json(request(h.app).post(`${session}/chunk`).set(t), userIds(40)));
    const dryCommit = await request(h.app).post(`${session}/commit?dry_run=true`).set(t);
    conforms('commitUpload', dryCommit);
    expect(bodyOf<DryRunBody>(dryCommit).data).toMatchObject({ dry_run: true, next_user_count: 40 });
    const commit = () => request(h.app).post(`${session}/commit`).set(t).set('Idempotency-Key', 'openapi-commit');
    conforms('commitUpload', await commit());
    const replayed = await commit();
    conforms('commitUpload', replayed);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const empty = `${users}/upload/${bodyOf<UploadCreatedBody>(await request(h.app).post(`${users}/upload`).set(t)).data.upload_id}`;
    for (const [key, extra, status] of [
      ['openapi-hold-c', {}, 409],
      ['openapi-412-c', { 'If-Match': '"0.0"' }, 412],
    ] as const) {
      const again = () => request(h.app).post(`${empty}/commit`).set(t).set(extra).set('Idempotency-Key', key);
      conforms('commitUpload', await again());
      const replay = await again();
      conforms('commitUpload', replay);
      expect(replay.status).toBe(status);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    await claimIdempotencyKey(h.db.pool, link.linkId, 'openapi-running-commit', Buffer.alloc(0));
    conforms(
      'commitUpload',
      await request(h.app).post(`${session}/commit`).set(t).set('Idempotency-Key', 'openapi-running-commit'),
    );
  });

  it('documents the 429 of every operation, with Retry-After and the RateLimit headers, as it is', async () => {
    const link = await seedLink(h.db, { plan: 'premium' });
    await request(limited).get(base(link)).set(auth(link.token)).expect(200); // the window's one request
    for (const call of CALLS) {
      const res = await send(call, link, auth(link.token), call.path, limited);
      expect(res.status).toBe(429);
      expect(res.headers['ratelimit']).toMatch(/^"premium"; r=0; t=\d+$/);
      expect(res.headers['ratelimit-policy']).toMatch(/^"premium"; q=1; w=60;/);
      conforms(call.id, res);
    }
  });

  it('promises no answer or header the API was not seen giving', () => {
    const documented = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) =>
        Object.entries(op.responses).flatMap(([s, r]) => [
          `${op.operationId} ${s}`,
          ...Object.keys(r.headers ?? {}).map((name) => `${op.operationId} ${s} ${name}`),
        ]),
      ),
    );
    expect(documented.filter((d) => !seen.has(d))).toEqual([]);
  });
});
