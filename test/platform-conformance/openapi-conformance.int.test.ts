// The emulator held to Discord's own OpenAPI description (../shared/platforms/discord-api-spec): the
// product's real code paths (a sync and its removals, drift repair from the audit log, doctor, the
// dashboard's sign-in and guild reads, a DM and a channel post) run against it while every call is
// recorded on the wire. Each request must fit the description (route, parameters, body, /api/v10,
// User-Agent, an encoded X-Audit-Log-Reason under 512), and each answer, success or refusal, must fit
// the schema the description gives for its path, method and status, less the description's own known
// errors (KNOWN_SPEC_ERRORS, each with its reason).
import path from 'node:path';
import type { PlatformExchange, RunningEmulator } from '@rolelink/platform-emulator';
import { enqueueLinkSync } from '@rolelink/queue';
import { memoryLogger } from '@rolelink/runtime';
import { startInProcessBot, type InProcessBot } from '../../services/bot-worker/test/support/in-process-bot';
import {
  GUILD_A,
  ROLE,
  STRANGERS,
  guildSeed,
  ids,
  insertLink,
  linkRow,
  sorted,
  upsertGuild,
  waitFor,
  writeList,
} from '../../services/bot-worker/test/support/harness';
import { DmChannels } from '../../services/bot-worker/src/notify/dm-channels';
import { OAuthClient } from '../../services/dashboard/src/auth/oauth-client';
import { GuildReader } from '../../services/dashboard/src/platform/guild-reader';
import { run } from '../../services/cli/src/main';
import { useCliEnv } from '../../services/cli/test/cli-env';
import { DiscordSpec, specPath, type KnownSpecError } from './discord-openapi';

const REPO = path.resolve(__dirname, '../..');
const PROBE_AGENT = 'DiscordBot (https://github.com/rolelink/conformance-probe, 1.0.0)';
const REDIRECT = 'http://127.0.0.1:3001/auth/callback';
const CHANNEL = '700000000000000101';
const OWNER = '790000000000000001';

/**
 * Where Discord's description is wrong and its prose docs (github:discord/discord-api-docs) are right,
 * as ../shared/platforms/README.md lists them. Nothing else is forgiven.
 */
const KNOWN_SPEC_ERRORS: KnownSpecError[] = [
  {
    reason: "a 429 body's `code` is marked required; the docs (topics/rate-limits) show it without one",
    applies: ({ status }) => status === 429,
    amend: (body) => (isObject(body) && !('code' in body) ? { ...body, code: 0 } : undefined),
  },
  {
    reason:
      "a 50035's `errors.*._errors[].code` is typed as an integer; the docs (reference, Error Messages) show strings such as BASE_TYPE_REQUIRED",
    applies: ({ status }) => status === 400,
    amend: (body) => {
      if (!isObject(body) || body.code !== 50035 || !isObject(body.errors)) return undefined;
      const numbered = JSON.parse(JSON.stringify(body.errors), (key, value: unknown) =>
        key === 'code' && typeof value === 'string' ? 0 : value,
      ) as unknown;
      return { ...body, errors: numbered };
    },
  },
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** POST /oauth2/token is not in the description; the docs (topics/oauth2) describe it. Checked here by hand. */
const OUTSIDE_SPEC = new Set(['POST /oauth2/token']);

/** The routes the product calls (grep `api.` in packages/ and services/), each to be met at least once. */
const PRODUCT_OPERATIONS = [
  'GET /users/@me',
  'GET /users/@me/guilds',
  'GET /applications/@me',
  'GET /guilds/{guild_id}',
  'GET /guilds/{guild_id}/roles',
  'GET /guilds/{guild_id}/roles/member-counts',
  'GET /guilds/{guild_id}/members',
  'GET /guilds/{guild_id}/members/{user_id}',
  'GET /guilds/{guild_id}/audit-logs',
  'GET /guilds/{guild_id}/channels',
  'PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}',
  'DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}',
  'POST /users/@me/channels',
  'POST /channels/{channel_id}/messages',
];

const spec = new DiscordSpec(specPath(REPO));
const log = memoryLogger('bot-worker', 'warn');
const members = ids(30);
let harness: InProcessBot;
let emulator: RunningEmulator;
const product: PlatformExchange[] = [];
const probes: PlatformExchange[] = [];
let sink: PlatformExchange[] = product;
const forgiven = new Set<string>();

beforeAll(async () => {
  harness = await startInProcessBot({
    logger: log.logger,
    concurrency: 2,
    drift: { everyMs: 500, floorPerSecond: 5, maxPerSecond: 10 },
  });
  emulator = harness.emulator;
  emulator.state.registerRedirectUri(REDIRECT);
  emulator.state.reset();
  const seed = guildSeed(GUILD_A, members.length);
  emulator.state.seed({
    guilds: [{ ...seed, name: 'Conformance', channels: [{ id: CHANNEL, name: 'general' }] }],
  });
  emulator.state.onExchange((x) => sink.push(x));
}, 60_000);
afterAll(() => harness?.close());

const operationOf = (x: PlatformExchange) => {
  const url = new URL(x.url, 'http://platform.invalid');
  const op = spec.operation(x.method, url.pathname.replace(/^\/api\/v10/, ''));
  return op ? `${x.method} ${op.template}` : `${x.method} ${url.pathname.replace(/^\/api\/v10/, '')}`;
};

const holders = () => sorted(emulator.state.holders(GUILD_A, ROLE.linked));

async function signIn(oauth: OAuthClient, userId: string): Promise<string> {
  const page = new URL(oauth.authorizeUrl('conformance-state'));
  const form = new URLSearchParams({ ...Object.fromEntries(page.searchParams), action: 'allow', user_id: userId });
  const res = await fetch(page.origin + page.pathname, { method: 'POST', body: form, redirect: 'manual' });
  const code = new URL(res.headers.get('location') ?? 'http://x.invalid').searchParams.get('code');
  if (!code) throw new Error(`no code from the sign-in page (${res.status})`);
  return code;
}

describe("the emulator against Discord's OpenAPI description", () => {
  it("runs the product's own paths: a sync, removals, drift repair, doctor, sign-in, guild reads, a DM", async () => {
    const { db, bot, client } = harness;
    // A sync: the listing, then role adds with an X-Audit-Log-Reason.
    await upsertGuild(db.pool, GUILD_A, 'free');
    const link = await insertLink(db.pool, { guildId: GUILD_A, roleId: ROLE.linked });
    const list = members.slice(0, 8);
    await writeList(db.pool, link, list);
    await enqueueLinkSync(bot.producer, link);
    await waitFor(holders, (h) => h.join() === sorted(list).join(), { what: 'the first sync', progress: holders });
    // Removals: the list shrinks.
    const shorter = list.slice(0, 5);
    await writeList(db.pool, link, shorter);
    await enqueueLinkSync(bot.producer, link);
    await waitFor(holders, (h) => h.join() === sorted(shorter).join(), { what: 'the removals', progress: holders });
    await waitFor(
      () => linkRow(db.pool, link),
      (r) => r.sync_done_seq === r.sync_wanted_seq,
      { what: 'sync done' },
    );
    // Drift: one hand edit that takes the linked role and gives another (one entry, `$add` beside
    // `$remove`, as the platform logs an edit of a member's roles), found in the audit log and repaired.
    emulator.state.setMemberRoles(GUILD_A, shorter[0]!, [ROLE.other], OWNER);
    const [edit] = emulator.state.audit.page({ guildId: GUILD_A, targetId: shorter[0]!, limit: 1 });
    expect([edit?.added, edit?.removed]).toEqual([[ROLE.other], [ROLE.linked]]);
    await waitFor(holders, (h) => h.join() === sorted(shorter).join(), { what: 'the drift repair', progress: holders });

    // Doctor, as an operator runs it.
    const restore = useCliEnv({ db, prefix: harness.prefix });
    process.env.PLATFORM_API_URL = `${emulator.apiBase}/v10`;
    process.env.PLATFORM_BOT_TOKEN = emulator.botToken;
    process.env.PLATFORM_OAUTH_AUTHORIZE_URL = `${emulator.url}/oauth2/authorize`;
    try {
      const out: string[] = [];
      await run(
        ['doctor', '--json'],
        (s) => out.push(s),
        (s) => out.push(s),
      );
      expect(out.join('\n')).toContain(GUILD_A);
    } finally {
      restore();
    }

    // The dashboard: a user signs in, their guilds; the bot's view of a guild.
    const oauth = new OAuthClient({
      apiUrl: `${emulator.apiBase}/v10`,
      authorizeUrl: `${emulator.url}/oauth2/authorize`,
      clientId: emulator.oauth.clientId,
      clientSecret: emulator.oauth.clientSecret,
      redirectUri: REDIRECT,
    });
    const tokens = await oauth.exchangeCode(await signIn(oauth, OWNER));
    expect((await oauth.user(tokens)).id).toBe(OWNER);
    expect((await oauth.guilds(tokens)).map((g) => g.id)).toContain(GUILD_A);
    const reader = new GuildReader(client.api);
    expect(await reader.botGuildIds()).toContain(GUILD_A);
    await reader.roles(GUILD_A);
    await reader.botFacts(GUILD_A);
    await reader.textChannels(GUILD_A);
    await reader.roleCounts(GUILD_A);
    await reader.memberCount(GUILD_A);

    // Notifications: a DM (Create DM, then the post) and a post to a guild channel.
    const dms = new DmChannels({
      api: client.api,
      redis: harness.redis,
      prefix: harness.prefix,
      appKey: 'conformance',
      spend: () => Promise.resolve(),
    });
    await dms.send(OWNER, { content: 'A conformance check says hello.' });
    await client.api.channels.createMessage(CHANNEL, { content: 'Alerts go here.' });
    expect(emulator.state.messages).toHaveLength(2);

    const seen = new Set(product.map(operationOf));
    expect(PRODUCT_OPERATIONS.filter((op) => !seen.has(op))).toEqual([]);
  }, 120_000);

  it("answers the platform's refusals on every route the product uses", async () => {
    sink = probes;
    const api = `${emulator.apiBase}/v10`;
    const bot = { Authorization: `Bot ${emulator.botToken}`, 'User-Agent': PROBE_AGENT };
    const probe = (method: string, p: string, headers: Record<string, string> = bot, body?: unknown) =>
      fetch(`${api}${p}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => ({ status: r.status, body: await r.text() }));
    const G = GUILD_A;
    const [member, stranger, nobody] = [members[0]!, STRANGERS[0], '123456789012345678'];
    const expectations: [number, Promise<{ status: number }>][] = [
      [401, probe('GET', '/users/@me', { ...bot, Authorization: 'Bot wrong' })],
      [401, probe('GET', '/users/@me/guilds', { ...bot, Authorization: 'Bearer wrong' })],
      [401, probe('GET', '/applications/@me', { ...bot, Authorization: 'Bot wrong' })],
      [404, probe('GET', '/guilds/999999999999999999')],
      [404, probe('GET', '/guilds/999999999999999999/roles')],
      [400, probe('GET', `/guilds/${G}/members?limit=0`)],
      [400, probe('GET', `/guilds/${G}/members?after=abc`)],
      [404, probe('GET', `/guilds/${G}/members/${stranger}`)],
      [404, probe('GET', `/guilds/${G}/members/${nobody}`)],
      [404, probe('PUT', `/guilds/${G}/members/${member}/roles/399999999999999999`)],
      [403, probe('PUT', `/guilds/${G}/members/${member}/roles/${ROLE.above}`)],
      [403, probe('DELETE', `/guilds/${G}/members/${member}/roles/${ROLE.bot}`)],
      [404, probe('DELETE', `/guilds/${G}/members/${stranger}/roles/${ROLE.linked}`)],
      [400, probe('GET', `/guilds/${G}/audit-logs?action_type=999`)],
      [400, probe('GET', `/guilds/${G}/audit-logs?limit=101`)],
      [400, probe('POST', '/users/@me/channels', bot, { recipient_id: 'x' })],
      [404, probe('POST', '/channels/999999999999999999/messages', bot, { content: 'hi' })],
      [400, probe('POST', `/channels/${CHANNEL}/messages`, bot, { content: '' })],
      [404, probe('GET', '/no/such/route')],
    ];
    const got = await Promise.all(expectations.map(([, p]) => p.then((r) => r.status)));
    expect(got).toEqual(expectations.map(([s]) => s));

    // Without the Server Members intent the listing is refused; a role bucket spent answers 429.
    emulator.state.setRules(G, { membersIntent: false });
    expect((await probe('GET', `/guilds/${G}/members?limit=1`)).status).toBe(403);
    emulator.state.setRules(G, { membersIntent: true });
    emulator.state.configure({ roleBucket: { limit: 1, windowMs: 60_000 } });
    const adds = await Promise.all(
      [members[20]!, members[21]!].map((u) => probe('PUT', `/guilds/${G}/members/${u}/roles/${ROLE.other}`)),
    );
    expect(adds.map((a) => a.status).sort()).toEqual([204, 429]);
    // A request without a client's User-Agent is refused at the edge, before the API.
    expect((await probe('GET', '/users/@me', { Authorization: bot.Authorization, 'User-Agent': 'node' })).status).toBe(
      403,
    );
    sink = product;
  });

  it('fits every request the product made to the description', () => {
    expect(product.length).toBeGreaterThan(20);
    const problems = product.flatMap((x) => (OUTSIDE_SPEC.has(operationOf(x)) ? [] : spec.requestProblems(x)));
    expect(problems).toEqual([]);
  });

  it('fits every answer, success or refusal, to the schema for its path, method and status', () => {
    const calls = [...product, ...probes].filter(
      (x) => x.url.startsWith('/api/v10/') && !OUTSIDE_SPEC.has(operationOf(x)),
    );
    // The edge's refusals are Cloudflare's pages, not the API's: the description does not cover them.
    const api = calls.filter((x) => !(x.contentType ?? '').startsWith('text/html'));
    const problems = api.flatMap((x) => spec.responseProblems(x, KNOWN_SPEC_ERRORS, (r) => forgiven.add(r)));
    expect(problems).toEqual([]);
    const statuses = new Set(api.map((x) => x.status));
    for (const s of [200, 204, 400, 401, 403, 404, 429]) expect(statuses).toContain(s);
    // Each known error was met (else the entry is stale and goes).
    expect([...forgiven].sort()).toEqual(KNOWN_SPEC_ERRORS.map((k) => k.reason).sort());
  });

  it('answers the token endpoint (not in the description) as the OAuth2 docs describe it', () => {
    const token = product.filter((x) => operationOf(x) === 'POST /oauth2/token');
    expect(token.length).toBeGreaterThan(0);
    for (const x of token) {
      expect(x.status).toBe(200);
      expect(JSON.parse(x.responseText)).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        refresh_token: expect.any(String),
        scope: 'identify guilds',
      });
      expect(x.body).toMatchObject({ grant_type: 'authorization_code', redirect_uri: REDIRECT });
    }
  });
});
