import type { RESTError, RESTGetAPIAuditLogResult } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../server';
import {
  call,
  control,
  GUILD,
  OWNER,
  ROLE,
  smallSeed,
  TEST_USER_AGENT,
  UNKNOWN_GUILD,
  USERS,
} from '../../test/support/fixtures';

const BOT_USER = '1000000000000000001';
const MOD = '200000000000000009';
const roleRoute = (user: string, role: string) => `/guilds/${GUILD}/members/${user}/roles/${role}`;
const log = (query = '') => call<RESTGetAPIAuditLogResult>(emulator, 'GET', `/guilds/${GUILD}/audit-logs${query}`);
/** [actor, target, `key:role,role` of each change] of each entry, in the order the platform answered. */
const summary = (body: RESTGetAPIAuditLogResult) =>
  body.audit_log_entries.map((e) => [
    e.user_id,
    e.target_id,
    ...(e.changes ?? []).map((c) => `${c.key}:${(c.new_value as { id: string }[]).map((r) => r.id).join(',')}`),
  ]);

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    seed: smallSeed(),
    roleBucket: { limit: 1000, windowMs: 1000 },
    globalPerSecond: 1000,
  });
});
afterAll(() => emulator.close());

describe('GET /guilds/:g/audit-logs (member role updates)', () => {
  it("records the bot's calls and hand edits as MEMBER_ROLE_UPDATE with $add/$remove, newest first, idempotent repeats left out", async () => {
    await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked), { headers: { 'X-Audit-Log-Reason': 'Role%20link' } });
    await call(emulator, 'PUT', roleRoute(USERS[1], ROLE.linked)); // already held: nothing changes, nothing logged
    // A moderator takes the linked role from USERS[2] and gives it VIP, by hand: one edit, one entry with both.
    expect(
      (
        await control(emulator, 'PUT', `/guilds/${GUILD}/members/${USERS[2]}/roles`, {
          roles: [ROLE.vip],
          actorId: MOD,
        })
      ).status,
    ).toBe(200);
    emulator.state.setMemberRoles(GUILD, USERS[1], []); // the owner, by default

    const res = await log();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(summary(res.body)).toEqual([
      [OWNER, USERS[1], `$remove:${ROLE.linked}`],
      [MOD, USERS[2], `$add:${ROLE.vip}`, `$remove:${ROLE.linked}`],
      [BOT_USER, USERS[1], `$add:${ROLE.linked}`],
    ]);
    const [, , botEntry] = res.body.audit_log_entries;
    expect(botEntry).toMatchObject({
      action_type: 25,
      reason: 'Role link',
      changes: [{ key: '$add', new_value: [{ id: ROLE.linked, name: 'linked' }] }],
    });
    expect(res.body.audit_log_entries[0]).not.toHaveProperty('reason');
    const ids = res.body.audit_log_entries.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
    expect(res.body.users.map((u) => u.id).sort()).toEqual([BOT_USER, MOD, OWNER, USERS[1], USERS[2]].sort());
  });

  it('pages forward with after (the next entries, oldest first, as the docs say), back with before, and filters by actor, target and action type', async () => {
    const all = (await log()).body.audit_log_entries.map((e) => e.id); // newest first: [e2, e1, e0]
    const after = await log(`?after=${all[2]}&limit=2`);
    expect(after.body.audit_log_entries.map((e) => e.id)).toEqual([all[1], all[0]]);
    // after=0: the log from its start, ascending.
    expect((await log('?after=0')).body.audit_log_entries.map((e) => e.id)).toEqual([...all].reverse());
    const before = await log(`?before=${all[0]}&limit=1`);
    expect(before.body.audit_log_entries.map((e) => e.id)).toEqual([all[1]]);
    expect((await log(`?after=${all[0]}`)).body.audit_log_entries).toEqual([]);
    expect(summary((await log(`?user_id=${BOT_USER}&action_type=25`)).body)).toEqual([
      [BOT_USER, USERS[1], `$add:${ROLE.linked}`],
    ]);
    expect(summary((await log(`?target_id=${USERS[2]}`)).body)).toEqual([
      [MOD, USERS[2], `$add:${ROLE.vip}`, `$remove:${ROLE.linked}`],
    ]);
    expect((await log('?action_type=1')).body.audit_log_entries).toEqual([]);
  });

  it('groups every role of a PATCH of the member in one entry, $add beside $remove, with its reason', async () => {
    // USERS[3] holds vip: the bot's PATCH to [linked] adds one and removes the other in the same edit.
    const res = await fetch(`${emulator.apiBase}/v10/guilds/${GUILD}/members/${USERS[3]}`, {
      method: 'PATCH',
      headers: {
        Authorization: `Bot ${emulator.botToken}`,
        'content-type': 'application/json',
        'User-Agent': TEST_USER_AGENT,
        'X-Audit-Log-Reason': 'two%20roles',
      },
      body: JSON.stringify({ roles: [ROLE.linked] }),
    });
    expect(res.status).toBe(200);
    const [entry] = (await log(`?target_id=${USERS[3]}&limit=1`)).body.audit_log_entries;
    expect(entry).toMatchObject({
      user_id: BOT_USER,
      target_id: USERS[3],
      reason: 'two roles',
      changes: [
        { key: '$add', new_value: [{ id: ROLE.linked, name: 'linked' }] },
        { key: '$remove', new_value: [{ id: ROLE.vip, name: 'vip' }] },
      ],
    });
  });

  it('answers 400 Invalid Form Body to a bad query, 404 to an unknown guild, 403 without View Audit Log', async () => {
    for (const [query, field] of [
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?after=abc', 'after'],
      ['?before=-1', 'before'],
      ['?action_type=x', 'action_type'],
      ['?action_type=999', 'action_type'],
      ['?action_type=0', 'action_type'],
      ['?target_id=abc', 'target_id'],
    ] as const) {
      const res = await log(query);
      expect([
        query,
        res.status,
        (res.body as unknown as RESTError).code,
        Object.keys((res.body as unknown as RESTError).errors ?? {}),
      ]).toEqual([query, 400, 50035, [field]]);
    }
    const unknown = await call<RESTError>(emulator, 'GET', `/guilds/${UNKNOWN_GUILD}/audit-logs`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 10004]);

    const botRole = emulator.state.guild(GUILD)!.botRole;
    const granted = botRole.permissions;
    botRole.permissions = granted & ~0x80n; // an invite that left View Audit Log out
    try {
      const denied = await call<RESTError>(emulator, 'GET', `/guilds/${GUILD}/audit-logs`);
      expect([denied.status, denied.body]).toEqual([403, { message: 'Missing Permissions', code: 50013 }]);
    } finally {
      botRole.permissions = granted;
    }
  });

  it('is rate limited like the other routes: a bucket per guild, 429 past it', async () => {
    await control(emulator, 'PATCH', '/config', { routeBucket: { limit: 2, windowMs: 60_000 } });
    try {
      const answers = [await log(), await log(), await log()];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[1]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(answers[2]!.headers.get('x-ratelimit-scope')).toBe('user');
    } finally {
      await control(emulator, 'PATCH', '/config', { routeBucket: { limit: 100, windowMs: 1_000 } });
    }
  });
});
