// Every route of every HTTP service (the User Management API, the dashboard, the plugin broker's
// internal routes), listed from the apps' own routers and the API's link pipeline's table, so a new route
// is walked without editing this file. Each route is asked the questions that should be refused (no credentials, malformed path
// parameters, unknown resources, a body of the wrong shape, malformed JSON); every refusal must parse
// with the one `errorBody` schema of contracts, and every route must refuse at least one of them.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { errorBody, shrinkBodySchema } from '@rolelink/contracts';
import { DEMO } from '../../scripts/stack/config';
import { signIn } from '../dashboard/sign-in';
import { startDashboardSystem, type DashboardSystem } from '../dashboard/system';
import { seedLink } from '../support/fixtures';
import { listRoutes, type AppRoute } from '../support/routes';

type Params = Record<string, string>;
type Credentials = { agent: TestAgent; send: (req: request.Test) => request.Test };
type Service = {
  name: 'api' | 'dashboard' | 'broker';
  routes: AppRoute[];
  /** A client without credentials, and one with them (token, signed-in session, internal bearer), fresh per route (a route may sign out). */
  anonymous: TestAgent;
  credentials(): Promise<Credentials>;
  /** Path parameters naming resources that exist, and ones that do not. */
  known: Params;
  unknown: Params;
  /** Routes that refuse nothing a caller can get wrong, and why. */
  exempt: Record<string, string>;
};
type Answer = { variant: string; url: string; status: number; body: unknown };

const WITH_BODY = new Set(['post', 'put', 'patch', 'delete']);
const keyOf = (r: AppRoute) => `${r.method} ${r.path}`;
/** Strict: a field no schema names (a hand-built body) fails here, though the schema itself stays open for clients. */
const strictErrorBody = errorBody.strict();

/** The path with each `:name` replaced from `values`; a parameter the table lacks fails the test (name it there). */
function fill(path: string, values: Params): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined)
      throw new Error(`no value for path parameter :${name} of ${path}: add it to the service's tables`);
    return v;
  });
}

async function ask(svc: Service, route: AppRoute): Promise<Answer[]> {
  const { agent, send } = await svc.credentials();
  const m = route.method as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';
  const malformed = Object.fromEntries(Object.keys(svc.known).map((k) => [k, 'x']));
  const variants: { variant: string; url: string; run: (url: string) => request.Test }[] = [
    { variant: 'no credentials', url: fill(route.path, svc.known), run: (url) => svc.anonymous[m](url) },
    { variant: 'malformed parameters', url: fill(route.path, malformed), run: (url) => send(agent[m](url)) },
    { variant: 'unknown resource', url: fill(route.path, svc.unknown), run: (url) => send(agent[m](url)) },
  ];
  if (WITH_BODY.has(m)) {
    variants.push(
      {
        variant: 'body of the wrong shape',
        url: fill(route.path, svc.known),
        run: (url) => send(agent[m](url)).send([1]),
      },
      {
        variant: 'malformed JSON',
        url: fill(route.path, svc.known),
        run: (url) => send(agent[m](url)).set('Content-Type', 'application/json').send('{"'),
      },
    );
  }
  const answers: Answer[] = [];
  for (const v of variants) {
    const res: Response = await v.run(v.url).redirects(0);
    answers.push({ variant: v.variant, url: v.url, status: res.status, body: res.body as unknown });
  }
  return answers;
}

/** What is wrong with one error answer of `svc`, or null. */
function problemOf(svc: Service, a: Answer): string | null {
  if (a.status === 409 && shrinkBodySchema.safeParse(a.body).success) return null;
  const parsed = strictErrorBody.safeParse(a.body);
  if (!parsed.success)
    return `not an ErrorBody: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`;
  const b = parsed.data;
  if (b.statusCode !== a.status) return `statusCode ${b.statusCode} differs from the HTTP status`;
  if (svc.name === 'api' && b.errors)
    return 'the User Management API answers `details`, never `errors` (its `errors` is the shrink hold)';
  if (svc.name !== 'api' && b.details) {
    // Validation errors name their fields where a form can show them.
    const fields = (b.errors ?? []).map((e) => e.field);
    if (fields.length !== b.details.length || fields.some((f) => !f))
      return `validation error without a field for each problem: ${JSON.stringify(b)}`;
  }
  return null;
}

describe('error answers of every route of every service', () => {
  let sys: DashboardSystem;
  let services: Service[];

  beforeAll(async () => {
    sys = await startDashboardSystem({ withWorker: false });
    const link = await seedLink(sys.db);
    // A plugin that refuses connections at once: the broker's calls fail fast with its 502s.
    await sys.db.pool.query(`UPDATE role_link SET plugin_url = 'https://127.0.0.1:1' WHERE id = $1`, [link.linkId]);
    const missing = {
      guildId: '100000000000000099',
      roleId: '100000000000000098',
      userId: '100000000000000097',
      uploadId: randomUUID(),
      linkId: '999999999',
      eventId: 'evt_999999999',
    };
    services = [
      {
        name: 'api',
        routes: [...listRoutes(sys.apps.api), ...sys.apps.apiLinkRoutes],
        anonymous: request.agent(sys.apiUrl),
        credentials: () =>
          Promise.resolve({
            agent: request.agent(sys.apiUrl),
            send: (req) => req.set('Authorization', `Token ${link.token}`),
          }),
        known: {
          guildId: link.guildId,
          roleId: link.roleId,
          userId: '100000000000000005',
          uploadId: randomUUID(),
          asset: 'reference.js',
        },
        unknown: { ...missing, asset: 'missing.js' },
        exempt: {
          'get /healthz': 'liveness: answers 200 while the process runs',
          'get /readyz':
            'readiness: its 503 is the error body plus `checks`, for the orchestrator (covered by runtime/health.test.ts)',
          'get /openapi.json': 'the API document, no input',
          'get /reference': 'the API reference page, no input',
        },
      },
      {
        name: 'dashboard',
        routes: listRoutes(sys.apps.dashboard),
        anonymous: request.agent(sys.url),
        credentials: async () => {
          const owner = await signIn(sys.url, DEMO.users.find((u) => u.role === 'owner')!.id);
          return { agent: owner.agent, send: (req) => req.set('X-CSRF-Token', owner.csrf) };
        },
        known: { guildId: DEMO.guildId, roleId: DEMO.linkedRoleId, userId: '100000000000000005', eventId: 'evt_1' },
        // A server the owner manages, a role with no link there (a server they do not manage is dashboard-api.int.test.ts's).
        unknown: { ...missing, guildId: DEMO.guildId },
        exempt: {
          'get /healthz': 'liveness: answers 200 while the process runs',
          'get /readyz':
            'readiness: its 503 is the error body plus `checks`, for the orchestrator (covered by runtime/health.test.ts)',
          'get /metrics': 'Prometheus text, no input',
          'get /auth/login': 'redirects to the platform sign-in whatever it is given',
          'get /auth/callback':
            'a person lands here in the browser: a refusal redirects to the sign-in page with its reason',
          'get /.*/': 'the web app for any other path (the browser app routes it)',
        },
      },
      {
        name: 'broker',
        routes: listRoutes(sys.apps.broker),
        anonymous: request.agent(sys.brokerUrl),
        credentials: () =>
          Promise.resolve({
            agent: request.agent(sys.brokerUrl),
            send: (req) => req.set('Authorization', `Bearer ${sys.brokerToken}`),
          }),
        known: { linkId: link.linkId, guildId: link.guildId, roleId: link.roleId },
        unknown: missing,
        exempt: {
          'get /healthz': 'liveness: answers 200 while the process runs',
          'get /readyz':
            'readiness: its 503 is the error body plus `checks`, for the orchestrator (covered by runtime/health.test.ts)',
          'get /metrics': 'Prometheus text, no input',
        },
      },
    ];
  });
  afterAll(async () => {
    await sys?.close();
  });

  it.each(['api', 'dashboard', 'broker'] as const)(
    '%s: every refusal on every route parses as ErrorBody, and every route refuses something',
    async (name) => {
      const svc = services.find((s) => s.name === name)!;
      const keys = svc.routes.map(keyOf);
      // An exemption names a route that exists, so the list cannot outlive the routes it excuses.
      expect(Object.keys(svc.exempt).filter((k) => !keys.includes(k))).toEqual([]);
      const walked = svc.routes.filter((r) => !(keyOf(r) in svc.exempt));
      expect(walked.length).toBeGreaterThan(0);

      const problems: string[] = [];
      for (const route of walked) {
        const errors = (await ask(svc, route)).filter((a) => a.status >= 400);
        if (!errors.length) problems.push(`${keyOf(route)}: no variant was refused`);
        for (const a of errors) {
          const p = problemOf(svc, a);
          if (p) problems.push(`${keyOf(route)} (${a.variant}, ${a.status} ${a.url}): ${p}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );
});
