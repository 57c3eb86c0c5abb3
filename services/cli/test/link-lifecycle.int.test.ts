import type { RequestListener } from 'node:http';
import request from 'supertest';
import {
  CORRECT_BOT_PERMISSIONS,
  CORRECT_RULES,
  startEmulator,
  type RunningEmulator,
} from '@rolelink/platform-emulator';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { silentLogger } from '@rolelink/runtime';
import { createApi } from '../../../services/api/src/app';
import { startHarness, type Harness } from '../../plugin-broker/test/support/harness';
import { json } from '../../plugin-broker/test/support/test-plugin';
import { truncateAll } from '../../../test/support/db';
import { snowflake, userIds } from '../../../test/support/fixtures';
import { REDIS_URL } from '../../../test/support/redis';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';
import { bodyOf, type ApiErrorBody, type ShrinkBody } from '../../../test/support/api';

let h: Harness;
let api: RequestListener;
let sync: SyncNotifier;
let redis: ReturnType<typeof producerConnection>;
let restoreEnv: () => void;

beforeAll(async () => {
  h = await startHarness();
  redis = producerConnection(REDIS_URL);
  sync = new SyncNotifier(redis, h.prefix, silentLogger());
  api = createApi({ pool: h.db.pool, sync, logger: silentLogger() }).listener;
  restoreEnv = useCliEnv(h);
});
afterAll(async () => {
  restoreEnv();
  await sync.close();
  redis.disconnect();
  await h.close();
});
beforeEach(async () => {
  await truncateAll(h.db);
  h.plugin.on('POST /register', (_req, res) => json(res, 200, { ok: true }));
  h.plugin.on('DELETE /config', (_req, res) => json(res, 200, {}));
});

/** What `--json` prints: an error body (`statusCode`, `message`) or the command's result. */
type CliOut = { statusCode?: number; message?: string } & Record<string, unknown>;

/** Runs `rolelink … --json` in-process; returns the exit code and the parsed output. */
async function cli(...args: string[]): Promise<{ code: number; out: CliOut }> {
  const lines: string[] = [];
  const code = await run(
    [...args, '--json'],
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  return { code, out: JSON.parse(lines.join('\n')) as CliOut };
}

const users = (g: string, r: string) => `/api/role-link/${g}/${r}/users`;

describe('rolelink link create', () => {
  it('registers with the plugin, which receives a token that works on the API for this link only', async () => {
    const [g, r] = [snowflake(), snowflake()];
    const registered = h.plugin.next('POST /register');
    const res = await cli('link', 'create', g, r, '--plugin-url', `${h.plugin.url}/`);
    expect(res.code).toBe(0);
    expect(res.out).toMatchObject({ guild_id: g, role_id: r, plugin_url: h.plugin.url, member_mode: 'handover' });
    const call = await registered;
    expect(JSON.parse(call.body)).toEqual({ guild_id: g, role_id: r, member_mode: 'handover', current_holders: 0 });
    expect(call.headers['user-agent']).toBe('Service/1.0');
    expect(call.headers['content-type']).toMatch(/^application\/json/);
    const token = String(call.headers.authorization).replace(/^Token /, '');
    expect(token).toMatch(/^rl_/);
    await request(api).get(users(g, r)).set('Authorization', `Token ${token}`).expect(200);
  });

  it('leaves nothing behind and says so when the plugin refuses to register', async () => {
    h.plugin.on('POST /register', (_req, res) => json(res, 500, { error: 'boom' }));
    const [g, r] = [snowflake(), snowflake()];
    const res = await cli('link', 'create', g, r, '--plugin-url', h.plugin.url);
    expect(res.code).toBe(1);
    expect(res.out).toMatchObject({
      statusCode: 502,
      message: 'Failed to register with plugin server',
      detail: 'plugin answered 500: {"error":"boom"}',
    });
    const { rows } = await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM role_link');
    expect(rows[0]!.n).toBe(0);
  });

  it("shows the refusing plugin's status, a bounded excerpt of its body and `plugin check`", async () => {
    const page = `<html><body>\u001b[2J Forbidden: this plugin does not know you ${'.'.repeat(1000)}</body></html>`;
    h.plugin.on('POST /register', (_req, res) => res.writeHead(403, { 'content-type': 'text/html' }).end(page));
    const [g, r] = [snowflake(), snowflake()];
    const lines: string[] = [];
    const push = (s: string) => void lines.push(s);
    const code = await run(['link', 'create', g, r, '--plugin-url', h.plugin.url], push, push);
    expect(code).toBe(1);
    const printed = lines.join('\n').split('\n');
    const [first, detail, hint, ...rest] = printed.filter((l) => !l.startsWith('warning: '));
    expect(first).toBe('error: Failed to register with plugin server');
    expect(detail).toMatch(
      /^ {2}plugin answered 403: <html><body> \[2J Forbidden: this plugin does not know you \.+…$/,
    );
    expect(Array.from(detail!.replace(/^ {2}plugin answered 403: /, ''))).toHaveLength(300);
    expect(hint).toBe(`hint: check the plugin against the contract with: rolelink plugin check ${h.plugin.url}`);
    expect(rest).toEqual([]);
  });

  it('refuses plugin URLs that are not HTTPS, too long, or private', async () => {
    const [g, r] = [snowflake(), snowflake()];
    for (const url of [
      'http://plugin.example.com',
      `https://a.example.com/${'x'.repeat(500)}`,
      'https://10.0.0.8',
      'https://svc.internal',
    ]) {
      const res = await cli('link', 'create', g, r, '--plugin-url', url);
      expect(res.code).toBe(1);
      expect(res.out.statusCode).toBe(400);
      expect(res.out.message).toMatch(/^Invalid plugin URL/);
    }
  });

  it('refuses a second link for the same role', async () => {
    const [g, r] = [snowflake(), snowflake()];
    expect((await cli('link', 'create', g, r, '--plugin-url', h.plugin.url)).code).toBe(0);
    const again = await cli('link', 'create', g, r, '--plugin-url', h.plugin.url);
    expect(again.out).toEqual({ statusCode: 409, message: 'A role link already exists for this role' });
  });

  it('explains a missing or unknown argument', async () => {
    expect((await cli('link', 'create', '1')).out.message).toMatch(/usage: rolelink link create <guildId> <roleId>/);
    expect((await cli('link', 'frobnicate')).out.message).toMatch(/unknown command/);
    expect((await cli('link', 'create', 'x', '2', '--plugin-url', h.plugin.url)).out).toMatchObject({
      statusCode: 400,
      message: 'Validation error',
      details: ['guildId: must be a numeric string'],
    });
    expect((await cli('link', 'create', '0123', '2', '--plugin-url', h.plugin.url)).out).toMatchObject({
      details: ['guildId: "0123" has a leading zero; a snowflake never starts with 0'],
    });
  });
});

describe('link delete, set, show and removals apply', () => {
  async function created(): Promise<{ g: string; r: string; token: string }> {
    const [g, r] = [snowflake(), snowflake()];
    const registered = h.plugin.next('POST /register');
    expect((await cli('link', 'create', g, r, '--plugin-url', h.plugin.url)).code).toBe(0);
    const token = String((await registered).headers.authorization).replace(/^Token /, '');
    return { g, r, token };
  }

  it('invalidates the token at once and tells the plugin with DELETE /config', async () => {
    const { g, r, token } = await created();
    const deleted = h.plugin.next('DELETE /config');
    const res = await cli('link', 'delete', g, r);
    expect(res.out).toMatchObject({ deleted: true });
    const after = await request(api).get(users(g, r)).set('Authorization', `Token ${token}`);
    expect(after.body).toEqual({ statusCode: 403, message: 'Invalid or revoked token' });
    const call = await deleted;
    expect(JSON.parse(call.body)).toEqual({ guild_id: g, role_id: r });
    expect(call.headers.authorization).toBe(`Token ${token}`);
    expect((await cli('link', 'delete', g, r)).out).toEqual({ statusCode: 404, message: 'Role link not found' });
  });

  it('disables and re-enables a link, and marks it trusted', async () => {
    const { g, r, token } = await created();
    expect((await cli('link', 'set', g, r, '--enabled', 'false')).out).toMatchObject({ state: 'disabled' });
    expect(
      bodyOf<ApiErrorBody>(await request(api).get(users(g, r)).set('Authorization', `Token ${token}`)).message,
    ).toBe('This role link is disabled');
    expect((await cli('link', 'set', g, r, '--enabled', 'true', '--trusted', 'true')).out).toMatchObject({
      state: 'awaiting_first_list',
      enabled: true,
      trusted: true,
    });
    await request(api).get(users(g, r)).set('Authorization', `Token ${token}`).expect(200);
    expect((await cli('link', 'set', g, r, '--enabled', 'maybe')).out.message).toMatch(/true or false/);
  });

  it('`link member` shows when a membership expires (null when permanent or not listed)', async () => {
    const { g, r, token } = await created();
    const [a, b, c] = userIds(3);
    const post = (id: string) =>
      request(api)
        .post(`${users(g, r)}/${id}`)
        .set('Authorization', `Token ${token}`);
    await post(a!).set('Content-Type', 'application/json').send('{"expires_at":"2034-01-02T03:04:05Z"}').expect(200);
    await post(b!).expect(200);
    expect((await cli('link', 'member', g, r, a!)).out).toMatchObject({
      user_id: a,
      state: 'synced',
      expires_at: '2034-01-02T03:04:05.000Z',
    });
    expect((await cli('link', 'member', g, r, b!)).out).toMatchObject({
      user_id: b,
      state: 'synced',
      expires_at: null,
    });
    expect((await cli('link', 'member', g, r, c!)).out).toMatchObject({ state: 'not_listed', expires_at: null });
  });

  it('shows a held change and applies it for the resent list', async () => {
    const { g, r, token } = await created();
    const put = (ids: string[]) =>
      request(api)
        .put(users(g, r))
        .set('Authorization', `Token ${token}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(ids));
    await put(userIds(50)).expect(200);
    const held = await put(userIds(5)).expect(409);
    // The hold notified the owner, in the write's transaction.
    const { rows: notified } = await h.db.pool.query<{ role_id: string; detail: unknown }>(
      `SELECT role_id::text, detail FROM notification WHERE guild_id = $1 AND kind = 'removal_held'`,
      [g],
    );
    expect(notified).toEqual([{ role_id: r, detail: { previous: 50, next: 5, removals: 45 } }]);
    const shown = await cli('link', 'show', g, r);
    // The held removal is the link's state, and counted under held (not as changes to make).
    expect(shown.out).toMatchObject({
      state: 'held',
      reason: 'shrink',
      counts: { listed: 50, held: 45, to_remove: 0 },
      held_change: { change_id: bodyOf<ShrinkBody>(held).errors.change_id, removals: 45 },
    });
    const applied = await cli('removals', 'apply', g, r);
    expect(applied.out).toMatchObject({ change_id: bodyOf<ShrinkBody>(held).errors.change_id, removals: 45 });
    await put(userIds(5)).expect(200);
    expect((await cli('removals', 'apply', g, r)).out).toEqual({
      statusCode: 404,
      message: 'No held change to apply for this role link',
    });
  });

  it('asks the plugin to resend its list after an apply (removals request-resend): one event per five minutes, refused once the list arrived', async () => {
    // A plugin that asked for list.resend_requested in its /register answer.
    h.plugin.on('POST /register', (_req, res) => json(res, 200, { ok: true, events: ['list.resend_requested'] }));
    const { g, r, token } = await created();
    const put = (ids: string[]) =>
      request(api)
        .put(users(g, r))
        .set('Authorization', `Token ${token}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(ids));
    await put(userIds(50)).expect(200);
    await put(userIds(5)).expect(409);
    expect(await cli('removals', 'request-resend', g, r)).toEqual({
      code: 1,
      out: { statusCode: 409, message: "No applied removal waits for the plugin's list: apply the held removal first" },
    });
    const applied = await cli('removals', 'apply', g, r);
    expect((await cli('link', 'show', g, r)).out).toMatchObject({
      removal: { state: 'awaiting_list', list_resent_at: null, resend: { listening: true, requested_at: null } },
    });

    const asked = await cli('removals', 'request-resend', g, r);
    expect(asked).toMatchObject({
      code: 0,
      out: {
        change_id: applied.out.change_id,
        window_ends_at: applied.out.window_ends_at,
        queued: true,
        event_id: expect.stringMatching(/^evt_/),
      },
    });
    expect((await cli('removals', 'request-resend', g, r)).out).toMatchObject({
      queued: false,
      event_id: null,
      requested_at: asked.out.requested_at,
    });
    const events = await h.db.pool.query<{ payload: unknown }>(
      "SELECT payload FROM plugin_event WHERE kind = 'list.resend_requested'",
    );
    expect(events.rows).toEqual([
      { payload: { change_id: applied.out.change_id, window_ends_at: applied.out.window_ends_at } },
    ]);
    const audit = await h.db.pool.query(
      "SELECT via, detail->>'event_id' AS event_id FROM admin_audit WHERE guild_id = $1 AND action = 'list_resend_requested'",
      [g],
    );
    expect(audit.rows).toEqual([{ via: 'cli', event_id: asked.out.event_id }]);

    // The plugin resends: the removals start, and the note about waiting for the list no longer applies.
    await put(userIds(5)).expect(200);
    expect((await cli('link', 'show', g, r)).out).toMatchObject({
      held_change: null,
      removal: { state: 'removing', list_resent_at: expect.any(String) },
    });
    const late = await cli('removals', 'request-resend', g, r);
    expect(late.code).toBe(1);
    expect(late.out).toMatchObject({
      statusCode: 409,
      message: expect.stringMatching(/^The plugin already resent its list/),
    });
  });

  it('pauses links beyond the allowance when a guild downgrades, and resumes them on upgrade', async () => {
    const g = snowflake();
    expect((await cli('guild', 'set-plan', g, '--plan', 'premium', '--owner', '100000000000000009')).out).toMatchObject(
      { plan: 'premium', slot_allowance: 210 },
    );
    const roles = [snowflake(), snowflake(), snowflake()];
    for (const r of roles) expect((await cli('link', 'create', g, r, '--plugin-url', h.plugin.url)).code).toBe(0);
    expect((await cli('guild', 'set-plan', g, '--plan', 'free')).out).toMatchObject({
      plan: 'free',
      slot_allowance: 2,
      links: 3,
    });
    expect((await cli('link', 'show', g, roles[2]!)).out).toMatchObject({
      state: 'paused',
      slot: { position: 3, allowance: 2 },
    });
    expect((await cli('guild', 'set-plan', g, '--plan', 'free', '--slots', '1')).out).toMatchObject({
      slot_allowance: 3,
    });
    expect((await cli('link', 'show', g, roles[2]!)).out).toMatchObject({ state: 'awaiting_first_list', reason: null });
    expect((await cli('guild', 'set-plan', g, '--plan', 'gold')).out.statusCode).toBe(400);
    // The owner was notified once per pause: the downgrade paused the newest link;
    // the upgrade to 3 slots paused nothing. Downgrading again pauses it again, and notifies again.
    const paused = async () =>
      (
        await h.db.pool.query<{ role_id: string; detail: unknown }>(
          `SELECT role_id::text, detail FROM notification WHERE guild_id = $1 AND kind = 'link_paused' ORDER BY id`,
          [g],
        )
      ).rows;
    expect(await paused()).toEqual([
      { role_id: roles[2], detail: { state: 'paused', reason: 'slot_allowance', plan: 'free', slot_allowance: 2 } },
    ]);
    await cli('guild', 'set-plan', g, '--plan', 'free', '--slots', '0');
    expect((await paused()).map((n) => n.role_id)).toEqual([roles[2], roles[2]]);
  });
});

describe('existing role members at creation (spec 1)', () => {
  let emu: RunningEmulator;
  const g = '700000000000000001';
  const small = '700000000000000010';
  const big = '700000000000000011';
  const mods = '700000000000000012';
  const top = '700000000000000013';
  beforeAll(async () => {
    emu = await startEmulator({
      port: 0,
      seed: {
        guilds: [
          {
            id: g,
            ownerId: '100000000000000009',
            botRoleId: '700000000000000099',
            rules: CORRECT_RULES,
            roles: [
              { id: small, position: 1 },
              { id: big, position: 2 },
              { id: mods, name: 'Mods', position: 3, permissions: String(0x20n | 0x2000n) },
              { id: '700000000000000099', position: 10, permissions: CORRECT_BOT_PERMISSIONS },
              { id: top, name: 'Top', position: 11 },
            ],
            members: [
              ...userIds(3).map((u) => ({ userId: u, roles: [small, big] })),
              ...userIds(150, 200000000000000000n).map((u) => ({ userId: u, roles: [big] })),
            ],
          },
        ],
      },
    });
    process.env.PLATFORM_API_URL = `${emu.apiBase}/v10`;
    process.env.PLATFORM_BOT_TOKEN = emu.botToken;
  });
  afterAll(async () => {
    delete process.env.PLATFORM_API_URL;
    delete process.env.PLATFORM_BOT_TOKEN;
    await emu.close();
  });

  it('keeps the current holders on the list before register when asked', async () => {
    let listAtRegister = -1;
    h.plugin.on('POST /register', (_req, res) => {
      void h.db.pool
        .query<{ user_count: number }>('SELECT user_count FROM role_link WHERE role_id = $1', [small])
        .then(({ rows }) => {
          listAtRegister = rows[0]?.user_count ?? -1;
          json(res, 200, {});
        });
    });
    const res = await cli('link', 'create', g, small, '--plugin-url', h.plugin.url, '--keep-members');
    expect(res.out).toMatchObject({ member_mode: 'keep', existing_members: 3 });
    expect(listAtRegister).toBe(3);
    expect((await cli('link', 'show', g, small)).out).toMatchObject({
      counts: { listed: 3, synced: 3 },
      state: 'up_to_date',
    });
  });

  it('refuses keep-members when the role has more holders than the synced limit', async () => {
    const res = await cli('link', 'create', g, big, '--plugin-url', h.plugin.url, '--keep-members');
    expect(res.out.statusCode).toBe(400);
    expect(res.out.message).toMatch(/153 members, more than the plan's synced limit of 100/);
  });

  it('records the holders as the hand-over baseline without putting them on the list', async () => {
    const registered = h.plugin.next('POST /register');
    const res = await cli('link', 'create', g, big, '--plugin-url', h.plugin.url);
    expect(res.out).toMatchObject({
      member_mode: 'handover',
      existing_members: 153,
      first_list:
        "judged against the role's 153 current holders (the plugin was told: current_holders 153): a first list that leaves out 39 or more of them, or is empty, is held until confirmed (409 confirm_required)",
    });
    // The plugin hears the same number before it sends its first list.
    const call = await registered;
    expect(JSON.parse(call.body)).toMatchObject({ member_mode: 'handover', current_holders: 153 });
    // Its first list of the 3 members who also hold `small` is held, and the 409 says against what.
    const held = await request(api)
      .put(users(g, big))
      .set('Authorization', String(call.headers.authorization))
      .send(userIds(3))
      .expect(409);
    expect(bodyOf<ShrinkBody>(held).errors).toMatchObject({ previous: 153, next: 3, removals: 150 });
    expect(bodyOf<ShrinkBody>(held).errors.message).toMatch(
      /^This first list would remove the role from 150 of its 153 current holders \(3 of them are on the list of 3\)\. On a hand-over link the role's current holders count as the previous list/,
    );
    // Nothing is on the list yet, and the link says why: its first list is held (a held removal comes before
    // awaiting_first_list in the one order of states, docs/api.md "A link's state").
    const shown = await cli('link', 'show', g, big);
    expect(shown.out).toMatchObject({ counts: { listed: 0 }, state: 'held', reason: 'shrink' });
    const { rows } = await h.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM applied_member WHERE outcome = 'applied'",
    );
    expect(rows[0]!.n).toBe(153);
  });

  it('refuses a role above the bot with 403 and the fix, before the plugin hears of it', async () => {
    const registered = jest.fn();
    h.plugin.on('POST /register', (_req, res) => {
      registered();
      json(res, 200, {});
    });
    const res = await cli('link', 'create', g, top, '--plugin-url', h.plugin.url);
    expect(res).toEqual({
      code: 1,
      out: {
        statusCode: 403,
        message:
          "The bot cannot manage this role. The role is not below the bot's highest role: drag the bot's role above it in Server Settings → Roles.",
        errors: [{ field: 'role_id', message: expect.any(String) }],
      },
    });
    expect(registered).not.toHaveBeenCalled();
  });

  it('links a privileged role only with --owner-consent naming it, and audits the consent', async () => {
    const none = await cli('link', 'create', g, mods, '--plugin-url', h.plugin.url);
    expect(none.out).toMatchObject({
      statusCode: 403,
      message:
        '"Mods" is a privileged role (it carries Manage Server, Manage Messages): linking it needs the server owner\'s consent, typed as the role\'s name (no consent was given).',
    });
    expect(
      (await cli('link', 'create', g, mods, '--plugin-url', h.plugin.url, '--owner-consent', 'Moderators')).out
        .statusCode,
    ).toBe(403);
    const made = await cli('link', 'create', g, mods, '--plugin-url', h.plugin.url, '--owner-consent', 'Mods');
    expect(made).toMatchObject({ code: 0, out: { role_id: mods } });
    const { rows } = await h.db.pool.query<{ action: string; via: string; detail: unknown }>(
      "SELECT action, via, detail FROM admin_audit WHERE role_id = $1 AND action = 'privileged_consent'",
      [mods],
    );
    expect(rows).toEqual([
      {
        action: 'privileged_consent',
        via: 'cli',
        detail: { role_name: 'Mods', permissions: ['Manage Server', 'Manage Messages'] },
      },
    ]);
  });
});
