import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SetupCheck } from '@rolelink/contracts';
import {
  createPlatformClient,
  PlatformShapeError,
  readRoleHolders,
  shapeErrorReporter,
  type PlatformClient,
} from '@rolelink/platform-client';
import { producerConnection, type RedisClient } from '@rolelink/queue';
import { createMetrics, MetricName, memoryLogger } from '@rolelink/runtime';
import { runReconcile } from '../../services/bot-worker/src/reconcile/reconcile';
import type { DoctorReport } from '../../services/cli/src/commands/doctor';
import { run } from '../../services/cli/src/main';
import { useCliEnv } from '../../services/cli/test/cli-env';
import { createTestDb, type TestDb } from '../support/db';
import { seedGuild, seedLink } from '../support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';

/**
 * A platform that answers with the wrong shapes an independent reimplementation of Discord's server
 * (Spacebar) was found to give: a guild without `roles`, listed members without `user`. Every answer is
 * otherwise what Discord sends. The product must name the route and the field, count it and, in doctor,
 * show a failed check: never a TypeError.
 */
const GUILD = '730000000000000001';
const ROLE = '730000000000000011';
/** A role without a link yet, for `link create`. */
const NEW_ROLE = '730000000000000013';
const BOT = '930000000000000001';
const TOKEN = 'wrong-shapes-bot-token';

const bot = { id: BOT, username: 'RoleLink', global_name: null, discriminator: '0', avatar: null, bot: true };
const roles = [
  { id: GUILD, name: '@everyone', color: 0, position: 0, permissions: '0', managed: false, hoist: false },
  { id: ROLE, name: 'Supporter', color: 0, position: 1, permissions: '0', managed: false, hoist: false },
  { id: NEW_ROLE, name: 'Patron', color: 0, position: 1, permissions: '0', managed: false, hoist: false },
  { id: '730000000000000012', name: 'RoleLink', color: 0, position: 2, permissions: '268435456', managed: true },
];
const answers: Record<string, unknown> = {
  '/users/@me': bot,
  '/applications/@me': { id: '930000000000000002', name: 'RoleLink', owner: bot, team: null, flags: 0 },
  [`/guilds/${GUILD}`]: { id: GUILD, name: 'Shapes', owner_id: '930000000000000003', mfa_level: 0, icon: null },
  [`/guilds/${GUILD}/roles`]: roles,
  [`/guilds/${GUILD}/roles/member-counts`]: { [ROLE]: 2 },
  [`/guilds/${GUILD}/members/${BOT}`]: { user: bot, nick: null, roles: ['730000000000000012'], flags: 0 },
  [`/guilds/${GUILD}/members`]: [
    { nick: null, roles: [ROLE], joined_at: '2026-01-01T00:00:00.000Z' },
    { nick: null, roles: [], joined_at: '2026-01-01T00:00:00.000Z' },
  ],
  '/users/@me/guilds': [{ id: GUILD, name: 'Shapes', icon: null, owner: false, permissions: '0' }],
};

let server: http.Server;
let apiUrl: string;
let db: TestDb;
let redis: RedisClient;
const prefix = testQueuePrefix();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname.replace(/^\/api\/v10/, ''));
    const body = answers[path];
    res.setHeader('content-type', 'application/json');
    res.statusCode = body === undefined ? 404 : 200;
    res.end(JSON.stringify(body ?? { message: '404: Not Found', code: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`;
  db = await createTestDb();
  redis = producerConnection(REDIS_URL, { enableOfflineQueue: true });
  await seedGuild(db, { id: GUILD });
  await seedLink(db, { guildId: GUILD, roleId: ROLE, memberMode: 'keep' });
}, 60_000);
afterAll(async () => {
  await db.drop();
  redis.disconnect();
  await dropPrefix(prefix);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The bot's client as the worker and the dashboard wire it: wrong shapes counted and logged. */
function client() {
  const metrics = createMetrics('shapes-test', { defaultMetrics: false });
  const { logger, lines } = memoryLogger();
  const platform: PlatformClient = createPlatformClient({
    apiUrl,
    token: TOKEN,
    redis,
    keyPrefix: prefix,
    events: { shapeError: shapeErrorReporter(metrics.platformShapeErrors(), logger) },
  });
  const counted = async (route: string) => {
    const text = await metrics.registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith(MetricName.platformShapeErrors) && l.includes(route));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  return { platform, logger, lines, counted };
}

async function thrown(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('platform answers of the wrong shape', () => {
  it('a guild without roles: a named error, counted by route', async () => {
    const { platform, lines, counted } = client();
    const err = await thrown(platform.api.guilds.get(GUILD));
    expect(err).toBeInstanceOf(PlatformShapeError);
    expect((err as Error).message).toBe('GET /guilds/{guild.id} answered without `roles`');
    expect(await counted('route="GET /guilds/{guild.id}"')).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', error: 'GET /guilds/{guild.id} answered without `roles`' }),
    );
  });

  it("members without user: link creation's holder count fails with the route and field", async () => {
    const { platform, counted } = client();
    const err = await thrown(readRoleHolders(platform.api, GUILD, ROLE));
    expect(err).toBeInstanceOf(PlatformShapeError);
    expect((err as Error).message).toBe('GET /guilds/{guild.id}/members answered without `[0].user`');
    expect(await counted('route="GET /guilds/{guild.id}/members"')).toBe(1);
  });

  it('members without user: the reconcile skips the guild with a clear log, not a TypeError', async () => {
    const { platform, logger, lines } = client();
    const enqueued: string[] = [];
    const result = await runReconcile({
      db: db.pool,
      api: platform.api,
      redis,
      prefix,
      logger,
      appKey: 'shapes-test',
      budgetMs: 30_000,
      enqueueSync: (linkId) => Promise.resolve(enqueued.push(linkId)),
    });
    expect(result).toMatchObject({ kind: 'done', guilds: 0, pages: 0 });
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'reconcile cannot read the member listing; guild skipped',
        guildId: GUILD,
        error: 'GET /guilds/{guild.id}/members answered without `[0].user`',
      }),
    );
  });

  it('rolelink link create: the named error, not "reading \'id\'"', async () => {
    const restore = useCliEnv({ db, prefix });
    process.env.PLATFORM_API_URL = apiUrl;
    process.env.PLATFORM_BOT_TOKEN = TOKEN;
    try {
      const out: string[] = [];
      const code = await run(
        ['link', 'create', GUILD, NEW_ROLE, '--plugin-url', 'https://127.0.0.1:9/plugin'],
        (s) => out.push(s),
        (s) => out.push(s),
      );
      expect(code).not.toBe(0);
      expect(out.join('\n')).toContain('GET /guilds/{guild.id}/members answered without `[0].user`');
      expect(out.join('\n')).not.toMatch(/TypeError|Cannot read properties/);
    } finally {
      restore();
    }
  });

  it('rolelink doctor: a failed check naming the route and the field, and a report', async () => {
    const restore = useCliEnv({ db, prefix });
    process.env.PLATFORM_API_URL = apiUrl;
    process.env.PLATFORM_BOT_TOKEN = TOKEN;
    try {
      const out: string[] = [];
      const code = await run(
        ['doctor', GUILD, '--json'],
        (s) => out.push(s),
        (s) => out.push(s),
      );
      const report = JSON.parse(out.join('\n')) as DoctorReport;
      expect(code).toBe(1);
      const checks = Object.fromEntries(report.guilds[0]!.checks.map((c: SetupCheck) => [c.id, c]));
      expect(checks.bot_in_guild).toMatchObject({ status: 'fail' });
      expect(checks.bot_in_guild!.detail).toContain('GET /guilds/{guild.id} answered without `roles`');
      expect(checks.bot_in_guild!.detail).not.toContain('did not answer');

      const text: string[] = [];
      await run(
        ['doctor', GUILD],
        (s) => text.push(s),
        (s) => text.push(s),
      );
      expect(text.join('\n')).toContain('✗ Bot in the server');
      expect(text.join('\n')).not.toMatch(/TypeError|Cannot read properties/);
    } finally {
      restore();
    }
  });
});
