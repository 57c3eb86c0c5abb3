// A guild on Spacebar made over its own API, as a person would: an owner and members register, the owner makes
// the guild and a role, an application with a bot, adds the bot with Manage Roles (its managed role), and an
// invite the members join by.
import { MANAGE_ROLES } from '@rolelink/domain';

export type SpacebarGuild = {
  guildId: string;
  /** The role the product links (below the bot's managed role). */
  roleId: string;
  ownerId: string;
  ownerToken: string;
  applicationId: string;
  botUserId: string;
  botToken: string;
  /** The members who joined by invite, in order. */
  memberIds: string[];
};

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One call to Spacebar's API (`/api/v9`) with a user's token (Spacebar takes it bare, as Discord's clients do). */
async function call(
  apiBase: string,
  method: string,
  route: string,
  token: string | null,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${apiBase}/v9${route}`, {
    method,
    headers: { ...(token ? { Authorization: token } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Spacebar ${method} ${route} answered ${res.status}: ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : {}) as Json;
}

async function register(apiBase: string, name: string): Promise<{ id: string; token: string }> {
  const { token } = await call(apiBase, 'POST', '/auth/register', null, {
    username: name,
    email: `${name}@rolelink.test`,
    password: 'rolelink-spacebar-seed',
    consent: true,
    date_of_birth: '1990-01-01',
  });
  const me = await call(apiBase, 'GET', '/users/@me', token as string);
  return { id: me.id as string, token: token as string };
}

export async function seedSpacebarGuild(apiBase: string, memberCount: number): Promise<SpacebarGuild> {
  const tag = Math.random().toString(36).slice(2, 8);
  const owner = await register(apiBase, `rl_owner_${tag}`);
  const guild = await call(apiBase, 'POST', '/guilds', owner.token, { name: `Role Link on Spacebar ${tag}` });
  const guildId = guild.id as string;
  const role = await call(apiBase, 'POST', `/guilds/${guildId}/roles`, owner.token, {
    name: 'Supporter',
    permissions: '0',
  });
  const application = await call(apiBase, 'POST', '/applications', owner.token, { name: `Role Link ${tag}` });
  const applicationId = application.id as string;
  const bot = await call(apiBase, 'POST', `/applications/${applicationId}/bot`, owner.token);
  await call(apiBase, 'POST', `/oauth2/authorize?client_id=${applicationId}`, owner.token, {
    guild_id: guildId,
    permissions: MANAGE_ROLES.toString(),
    authorize: true,
  });
  const botUser = await call(apiBase, 'GET', '/users/@me', `Bot ${bot.token as string}`);
  // As on the platform, the bot's managed role joins at the bottom: the owner drags it to the top.
  const roles = (await call(apiBase, 'GET', `/guilds/${guildId}/roles`, owner.token)) as unknown as Json[];
  // Discord marks it with tags.bot_id; Spacebar's has no tags, only managed and the application's name.
  const botRole = roles.find(
    (r) => (isObject(r.tags) && r.tags.bot_id === botUser.id) || (r.managed === true && r.name === application.name),
  );
  if (!botRole) throw new Error(`Spacebar gave the bot no managed role in guild ${guildId}`);
  const top = Math.max(...roles.map((r) => Number(r.position)));
  await call(apiBase, 'PATCH', `/guilds/${guildId}/roles`, owner.token, [{ id: botRole.id, position: top + 1 }]);
  const channels = (await call(apiBase, 'GET', `/guilds/${guildId}/channels`, owner.token)) as unknown as Json[];
  const text = channels.find((c) => c.type === 0) ?? channels[0];
  if (!text) throw new Error(`Spacebar made guild ${guildId} without a channel to invite into`);
  const invite = await call(apiBase, 'POST', `/channels/${text.id as string}/invites`, owner.token, { max_age: 0 });
  const memberIds: string[] = [];
  for (let i = 0; i < memberCount; i++) {
    const member = await register(apiBase, `rl_member_${tag}_${i}`);
    await call(apiBase, 'POST', `/invites/${invite.code as string}`, member.token, {});
    memberIds.push(member.id);
  }
  return {
    guildId,
    roleId: role.id as string,
    ownerId: owner.id,
    ownerToken: owner.token,
    applicationId,
    botUserId: botUser.id as string,
    botToken: bot.token as string,
    memberIds,
  };
}
