import { checkResponseShape } from './check-response';
import { PlatformShapeError } from './shape-error';
import { ROUTE_SHAPES, routeShape } from './routes';

/** Answers as Discord sends them (its docs' examples): more fields than the product reads. */
const user = {
  id: '80351110224678912',
  username: 'Nelly',
  discriminator: '0',
  global_name: null,
  avatar: '8342729096ea3675442027381ff50dfe',
  public_flags: 64,
  flags: 64,
};
const role = {
  id: '41771983423143936',
  name: 'WE DEM BOYZZ!!!!!!',
  color: 3447003,
  colors: { primary_color: 3447003, secondary_color: null, tertiary_color: null },
  hoist: true,
  icon: null,
  unicode_emoji: null,
  position: 1,
  permissions: '66321471',
  managed: false,
  mentionable: false,
  flags: 0,
};
const member = {
  user,
  nick: 'NOT API SUPPORT',
  avatar: null,
  roles: ['41771983423143936'],
  joined_at: '2015-04-26T06:26:56.936000+00:00',
  deaf: false,
  mute: false,
  flags: 0,
};
const guild = {
  id: '197038439483310086',
  name: 'Discord Testers',
  icon: 'f64c482b807da4f539cff778d174971c',
  owner_id: '73193882359173120',
  mfa_level: 1,
  roles: [role],
  features: ['COMMUNITY'],
  premium_tier: 3,
};

async function check(routeKey: string, body: unknown, init: { status?: number; type?: string } = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const res = new Response(text, {
    status: init.status ?? 200,
    headers: { 'content-type': init.type ?? 'application/json' },
  });
  const [method] = routeKey.split(':');
  return checkResponseShape(method!, routeKey, res);
}

async function refusal(routeKey: string, body: unknown, init?: { status?: number; type?: string }) {
  const err = await check(routeKey, body, init).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformShapeError)) throw new Error(`expected PlatformShapeError, got ${String(err)}`);
  return err;
}

describe('platform answers checked at the client boundary', () => {
  it.each([
    ['GET:/users/@me', user],
    ['GET:/users/%40me', user],
    ['GET:/guilds/:id', guild],
    ['GET:/guilds/:id', { ...guild, approximate_member_count: 42, approximate_presence_count: 7 }],
    ['GET:/guilds/:id/roles', [role]],
    ['GET:/guilds/:id/members', [member, { ...member, nick: null, user: { ...user, id: '2' } }]],
    ['GET:/guilds/:id/members', [{ user: { id: '1', username: 'a' }, roles: [] }]],
    ['GET:/guilds/:id/members/:id', member],
    ['GET:/guilds/:id/roles/member-counts', { '41771983423143936': 3 }],
    ['GET:/users/@me/guilds', [{ id: '1', name: 'g', icon: null, banner: null, owner: true, permissions: '8' }]],
    ['GET:/applications/@me', { id: '1', name: 'app', owner: user, team: null, flags: 1 << 15 }],
    ['GET:/applications/@me', { id: '1', name: 'app', team: { id: '2', name: 'Crew', members: [] } }],
    ['GET:/guilds/:id/channels', [{ id: '1', type: 0, name: 'general', position: 0, guild_id: '9' }]],
    ['POST:/users/@me/channels', { id: '1', type: 1, recipients: [user], last_message_id: null }],
    [
      'GET:/guilds/:id/audit-logs',
      {
        audit_log_entries: [
          {
            id: '3',
            action_type: 25,
            target_id: '4',
            user_id: '5',
            changes: [
              { key: '$add', new_value: [{ id: '6', name: 'Linked' }] },
              { key: '$remove', new_value: [{ id: '7', name: 'Other' }] },
            ],
          },
          { id: '8', action_type: 25, target_id: null, user_id: null, changes: [{ key: 'nick', new_value: 'x' }] },
          { id: '9', action_type: 25, target_id: '4', user_id: '5' },
        ],
        users: [],
        integrations: [],
        webhooks: [],
      },
    ],
    ['POST:/oauth2/token', { access_token: 'a', token_type: 'Bearer', expires_in: 604800, refresh_token: 'r' }],
  ])('%s accepts what Discord sends', async (routeKey, body) => {
    expect(routeShape(routeKey)).toBeDefined();
    const res = await check(routeKey, body);
    // Passed on untouched: fields the product does not read are still there.
    expect(await res.json()).toEqual(body);
  });

  it('names the route and the missing field: a guild without roles', async () => {
    const { roles: _, ...withoutRoles } = guild;
    const err = await refusal('GET:/guilds/:id', withoutRoles);
    expect(err.message).toBe('GET /guilds/{guild.id} answered without `roles`');
    expect(err).toMatchObject({ method: 'GET', route: '/guilds/{guild.id}', problem: 'missing', field: 'roles' });
  });

  it('names the member without user, by its place in the page', async () => {
    const err = await refusal('GET:/guilds/:id/members', [member, { nick: null, roles: [] }]);
    expect(err.message).toBe('GET /guilds/{guild.id}/members answered without `[1].user`');
    expect(err.field).toBe('[1].user');
  });

  it('names a field of the wrong type', async () => {
    const err = await refusal('GET:/guilds/:id', { ...guild, roles: [{ ...role, permissions: 66321471 }] });
    expect(err.problem).toBe('invalid');
    expect(err.message).toMatch(
      /^GET \/guilds\/\{guild\.id\} answered `roles\[0\]\.permissions` as a number \(expected string/,
    );
  });

  it('refuses a listing that is not a list, and an answer that is not JSON', async () => {
    expect((await refusal('GET:/guilds/:id/roles', { roles: [role] })).message).toBe(
      'GET /guilds/{guild.id}/roles answered an object, not an array',
    );
    const html = await refusal('GET:/users/@me', '<html>gateway</html>', { type: 'text/html' });
    expect(html).toMatchObject({ problem: 'not_json' });
    expect(html.message).toBe('GET /users/@me answered 200 without a JSON body (content-type text/html)');
  });

  it('refuses an audit-log role change whose roles are not a list of ids', async () => {
    const body = {
      audit_log_entries: [
        { id: '3', action_type: 25, target_id: '4', user_id: '5', changes: [{ key: '$add', new_value: '6' }] },
      ],
    };
    const err = await refusal('GET:/guilds/:id/audit-logs', body);
    expect(err.field).toBe('audit_log_entries[0].changes[0].new_value');
  });

  it('leaves alone what nobody reads and what is not a success', async () => {
    expect(routeShape('PUT:/guilds/:id/members/:id/roles/:id')).toBeUndefined();
    const res = await check('GET:/guilds/:id', { message: 'Unknown Guild', code: 10004 }, { status: 404 });
    expect(res.status).toBe(404);
  });

  it('calls the hook before throwing (the services count it)', async () => {
    const seen: string[] = [];
    const res = new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    await expect(checkResponseShape('GET', 'GET:/guilds/:id', res, (e) => seen.push(e.route))).rejects.toThrow(
      PlatformShapeError,
    );
    expect(seen).toEqual(['/guilds/{guild.id}']);
  });

  it('names every route by the platform docs’ placeholders', () => {
    for (const [key, shape] of Object.entries(ROUTE_SHAPES)) {
      const template = key.slice(key.indexOf(':') + 1);
      expect(shape.path.replace(/\{[a-z.]+\}/g, ':id')).toBe(template);
    }
  });
});
