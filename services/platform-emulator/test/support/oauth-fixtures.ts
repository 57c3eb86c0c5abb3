import { PermissionFlagsBits, type RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import type { RunningEmulator } from '../../src/server';
import type { EmulatorSeed } from '../../src/seed';
import { CORRECT_BOT_PERMISSIONS } from '../../src/guild-rules';
import { call, TEST_USER_AGENT, type Answer } from './fixtures';

/**
 * Two guilds for the OAuth2 tests. Alpha: an owner, a moderator (Manage Server), an administrator and a
 * plain member, plus generated members who must never be offered on the sign-in page. Beta: owned by
 * Alpha's plain member, with the moderator as a member without roles.
 */
export const ALPHA = '510000000000000001';
export const BETA = '520000000000000001';
export const ALPHA_ROLE = {
  mod: '511000000000000001',
  bot: '511000000000000002',
  admin: '511000000000000003',
} as const;
export const BETA_BOT_ROLE = '521000000000000001';
export const PEOPLE = {
  owner: '610000000000000001',
  mod: '610000000000000002',
  admin: '610000000000000003',
  plain: '610000000000000004',
} as const;
export const GENERATED_START = '700000000000000000';
export const REDIRECT = 'http://127.0.0.1:3001/auth/callback';
/** View Channels + Send Messages: what @everyone holds in Alpha. */
export const EVERYONE_BITS = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;

export function oauthSeed(): EmulatorSeed {
  return {
    guilds: [
      {
        id: ALPHA,
        name: 'Alpha',
        ownerId: PEOPLE.owner,
        roles: [
          { id: ALPHA, name: '@everyone', position: 0, permissions: EVERYONE_BITS.toString() },
          {
            id: ALPHA_ROLE.mod,
            name: 'Moderator',
            position: 3,
            permissions: PermissionFlagsBits.ManageGuild.toString(),
            color: 0x3498db,
          },
          {
            id: ALPHA_ROLE.bot,
            name: 'Role Link',
            position: 5,
            permissions: (
              PermissionFlagsBits.ViewChannel |
              PermissionFlagsBits.ManageRoles |
              PermissionFlagsBits.ViewAuditLog
            ).toString(),
          },
          {
            id: ALPHA_ROLE.admin,
            name: 'Administrators',
            position: 6,
            permissions: PermissionFlagsBits.Administrator.toString(),
            color: 0xe74c3c,
          },
        ],
        botRoleId: ALPHA_ROLE.bot,
        members: [
          { userId: PEOPLE.owner, username: 'alpha_owner' },
          { userId: PEOPLE.mod, roles: [ALPHA_ROLE.mod], username: 'mod_user', globalName: 'Moderator Mo' },
          { userId: PEOPLE.admin, roles: [ALPHA_ROLE.admin], username: 'admin_user' },
          { userId: PEOPLE.plain, username: 'plain_user' },
        ],
        generateMembers: { count: 50, startId: GENERATED_START },
      },
      {
        id: BETA,
        name: 'Beta',
        ownerId: PEOPLE.plain,
        roles: [{ id: BETA_BOT_ROLE, name: 'Role Link', position: 1, permissions: CORRECT_BOT_PERMISSIONS }],
        botRoleId: BETA_BOT_ROLE,
        members: [{ userId: PEOPLE.plain }, { userId: PEOPLE.mod }],
      },
    ],
  };
}

export type AuthorizeFields = {
  user_id?: string;
  action?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
};

/** GET /oauth2/authorize with the dashboard's usual parameters, overridable (undefined drops one). */
export async function authorizePage(
  emulator: RunningEmulator,
  params: Record<string, string | undefined> = {},
): Promise<{ status: number; headers: Headers; html: string }> {
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: emulator.oauth.clientId,
    scope: 'identify guilds',
    state: 'st4te',
    redirect_uri: REDIRECT,
    ...params,
  };
  const query = new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  const res = await fetch(`${emulator.url}/oauth2/authorize?${query.toString()}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** POSTs the sign-in page's form as a browser would; the answer is not followed. */
export async function submitAuthorize(emulator: RunningEmulator, fields: AuthorizeFields): Promise<Response> {
  const all: AuthorizeFields = {
    action: 'allow',
    client_id: emulator.oauth.clientId,
    redirect_uri: REDIRECT,
    scope: 'identify guilds',
    state: 'st4te',
    ...fields,
  };
  const body = new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return fetch(`${emulator.url}/oauth2/authorize`, { method: 'POST', body, redirect: 'manual' });
}

/** Chooses a user on the sign-in page and returns the code from the redirect. */
export async function authorizationCode(
  emulator: RunningEmulator,
  userId: string,
  scope = 'identify guilds',
): Promise<string> {
  const res = await submitAuthorize(emulator, { user_id: userId, scope });
  const code = new URL(res.headers.get('location') ?? '').searchParams.get('code');
  if (res.status !== 302 || !code) throw new Error(`no code: ${res.status} ${res.headers.get('location')}`);
  return code;
}

/**
 * POST /api/v10/oauth2/token, form-encoded. The client's credentials go in the body unless
 * `authorization` (e.g. HTTP Basic) is given or `bodyCredentials` is false.
 */
export async function tokenRequest<T = unknown>(
  emulator: RunningEmulator,
  fields: Record<string, string>,
  options: { authorization?: string; bodyCredentials?: boolean } = {},
): Promise<Answer<T>> {
  const inBody = (options.bodyCredentials ?? true) && options.authorization === undefined;
  const body = inBody
    ? { client_id: emulator.oauth.clientId, client_secret: emulator.oauth.clientSecret, ...fields }
    : fields;
  const res = await fetch(`${emulator.apiBase}/v10/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'User-Agent': TEST_USER_AGENT,
      ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    },
    body: new URLSearchParams(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The whole sign-in: choose the user, exchange the code. */
export async function signIn(
  emulator: RunningEmulator,
  userId: string,
  scope = 'identify guilds',
): Promise<RESTPostOAuth2AccessTokenResult> {
  const code = await authorizationCode(emulator, userId, scope);
  const res = await tokenRequest<RESTPostOAuth2AccessTokenResult>(emulator, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A platform API call with a user's bearer token. */
export function asUser<T = unknown>(emulator: RunningEmulator, accessToken: string, path: string): Promise<Answer<T>> {
  return call<T>(emulator, 'GET', path, { token: null, headers: { Authorization: `Bearer ${accessToken}` } });
}
