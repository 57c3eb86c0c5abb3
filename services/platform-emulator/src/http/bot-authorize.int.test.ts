import { PermissionFlagsBits } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../server';
import type { EmulatorSeed } from '../seed';
import { call } from '../../test/support/fixtures';
import { ALPHA, BETA, oauthSeed, PEOPLE, REDIRECT } from '../../test/support/oauth-fixtures';

/** Gamma: owned by Alpha's plain member, the moderator holds Manage Server there, the bot is not in it yet. */
const GAMMA = '530000000000000001';
const GAMMA_BOT_ROLE = '531000000000000001';
const GAMMA_MOD_ROLE = '531000000000000002';
const LURKER = '610000000000000009';
const BITS = PermissionFlagsBits.ManageRoles | PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;

function seed(): EmulatorSeed {
  const s = oauthSeed();
  s.guilds.push({
    id: GAMMA,
    name: 'Gamma',
    ownerId: PEOPLE.plain,
    botMember: false,
    roles: [
      { id: GAMMA_BOT_ROLE, name: 'Role Link', position: 4 },
      { id: GAMMA_MOD_ROLE, name: 'Mods', position: 2, permissions: PermissionFlagsBits.ManageGuild.toString() },
    ],
    botRoleId: GAMMA_BOT_ROLE,
    members: [
      { userId: PEOPLE.plain },
      { userId: PEOPLE.mod, roles: [GAMMA_MOD_ROLE] },
      { userId: LURKER, username: 'lurker' },
    ],
  });
  return s;
}

const choices = (html: string) => [...html.matchAll(/name="choice" value="(\d+:\d+)"/g)].map((m) => m[1]);

describe('bot authorization (/oauth2/authorize?scope=bot)', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: seed() });
  });
  afterEach(() => emulator.close());

  const page = async (params: Record<string, string> = {}) => {
    const query = new URLSearchParams({
      client_id: emulator.oauth.clientId,
      scope: 'bot',
      permissions: BITS.toString(),
      ...params,
    });
    const res = await fetch(`${emulator.url}/oauth2/authorize?${query.toString()}`);
    return { status: res.status, csp: res.headers.get('content-security-policy') ?? '', html: await res.text() };
  };
  const post = (fields: Record<string, string>) =>
    fetch(`${emulator.url}/oauth2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        client_id: emulator.oauth.clientId,
        scope: 'bot',
        permissions: BITS.toString(),
        action: 'allow',
        ...fields,
      }),
    });
  const botGuilds = async () =>
    (await call<{ id: string }[]>(emulator, 'GET', '/users/@me/guilds')).body.map((g) => g.id);

  it('a guild seeded with botMember false is not among the bot guilds until someone with Manage Server adds the bot', async () => {
    expect(await botGuilds()).toEqual([ALPHA, BETA]);
    const shown = await page();
    expect(shown.status).toBe(200);
    // Only Gamma lacks the bot; its owner and its moderator may add it, the lurker may not.
    expect(choices(shown.html)).toEqual([`${PEOPLE.mod}:${GAMMA}`, `${PEOPLE.plain}:${GAMMA}`]);
    expect(shown.html).toContain('<li>Manage Roles</li>');
    expect(shown.html).toContain('<li>Send Messages</li>');
    // The page posts to itself (no redirect_uri), so its CSP must allow that, and only that.
    expect(shown.csp).toContain("form-action 'self';");

    const done = await post({ choice: `${PEOPLE.mod}:${GAMMA}` });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('was added to <strong>Gamma</strong>');
    expect(await botGuilds()).toEqual([ALPHA, BETA, GAMMA]);
    expect(emulator.state.memberRoles(GAMMA, emulator.state.botUserId)).toEqual([GAMMA_BOT_ROLE]);
    expect(emulator.state.guild(GAMMA)!.botRole.permissions).toBe(BITS);
    expect(choices((await page()).html)).toEqual([]);
    // A second post for the same guild is refused: the bot is already there.
    const again = await post({ choice: `${PEOPLE.plain}:${GAMMA}` });
    expect([again.status, await again.text()]).toEqual([400, expect.stringContaining('The bot is already in Gamma.')]);
  });

  it('redirects to redirect_uri with guild_id, permissions and state when one is given', async () => {
    const res = await post({ choice: `${PEOPLE.plain}:${GAMMA}`, redirect_uri: REDIRECT, state: 's1' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location') ?? '');
    expect([to.origin + to.pathname, Object.fromEntries(to.searchParams)]).toEqual([
      REDIRECT,
      { guild_id: GAMMA, permissions: BITS.toString(), state: 's1' },
    ]);
    const cancelled = await post({ action: 'cancel', redirect_uri: REDIRECT });
    expect(new URL(cancelled.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');
  });

  it('answers every bad request with the error page and adds nothing', async () => {
    const bad: [Record<string, string>, string][] = [
      [{ client_id: 'nope' }, 'Unknown client_id'],
      [{ scope: 'bot identify' }, 'Unsupported scope with bot: identify'],
      [{ permissions: '-1' }, 'Invalid permissions'],
      [{ permissions: '18446744073709551616' }, 'Invalid permissions'],
      [{ guild_id: 'x' }, 'Invalid guild_id'],
      [{ guild_id: '599999999999999999' }, 'Unknown guild_id'],
      [{ disable_guild_select: 'true' }, 'needs a guild_id'],
      [{ disable_guild_select: 'yes' }, 'Invalid disable_guild_select'],
      [{ redirect_uri: 'javascript:alert(1)' }, 'Invalid redirect_uri'],
      // One that names a redirect must name a registered one, as sign-in must.
      [{ redirect_uri: 'http://127.0.0.1:3002/added' }, 'Invalid OAuth2 redirect_uri'],
    ];
    for (const [params, message] of bad) {
      const shown = await page(params);
      expect([params, shown.status, shown.html.includes(message)]).toEqual([params, 400, true]);
    }
    const refused: [Record<string, string>, string][] = [
      [{ choice: '' }, 'Missing or malformed choice'],
      [{ choice: `${LURKER}:${GAMMA}` }, 'lurker cannot add the bot to Gamma'],
      [{ choice: `${PEOPLE.admin}:${GAMMA}` }, `User ${PEOPLE.admin} is not in guild ${GAMMA}`],
      [{ choice: `${PEOPLE.owner}:${ALPHA}` }, 'The bot is already in Alpha.'],
      [
        { choice: `${PEOPLE.plain}:${GAMMA}`, guild_id: BETA, disable_guild_select: 'true' },
        `adds the bot to guild ${BETA} only`,
      ],
      [{ choice: `${PEOPLE.plain}:${GAMMA}`, action: 'maybe' }, 'Missing or unknown action'],
    ];
    for (const [fields, message] of refused) {
      const res = await post(fields);
      expect([fields, res.status, (await res.text()).includes(message)]).toEqual([fields, 400, true]);
    }
    expect(await botGuilds()).toEqual([ALPHA, BETA]);
  });

  it('limits the page to the named guild with disable_guild_select', async () => {
    const s = seed();
    s.guilds.push({
      ...s.guilds[2]!,
      id: '540000000000000001',
      name: 'Delta',
      roles: [{ id: '541000000000000001', position: 1 }],
      botRoleId: '541000000000000001',
      members: [{ userId: PEOPLE.plain }],
    });
    emulator.state.seed(s);
    expect(choices((await page()).html)).toEqual([
      `${PEOPLE.mod}:${GAMMA}`,
      `${PEOPLE.plain}:${GAMMA}`,
      `${PEOPLE.plain}:540000000000000001`,
    ]);
    expect(choices((await page({ guild_id: '540000000000000001', disable_guild_select: 'true' })).html)).toEqual([
      `${PEOPLE.plain}:540000000000000001`,
    ]);
  });

  it('refuses a seed that gives the reserved bot role to someone while the bot is absent', () => {
    const s = seed();
    s.guilds[2]!.members![0]!.roles = [GAMMA_BOT_ROLE];
    expect(() => emulator.state.seed(s)).toThrow(/reserved for the bot/);
  });
});
