import type { EmulatorState } from '../emulator-state';
import type { GuildState, UserProfile } from '../guild-state';
import { guildPermissions } from '../permissions';

export type SignInUser = UserProfile & { id: string; guilds: { id: string; name: string; owner: boolean }[] };
export type UserGuild = { guild: GuildState; owner: boolean; permissions: bigint };

/**
 * Who may sign in on the emulator's OAuth2 page: every guild owner and every member a seed listed one
 * by one, never the bot nor generated members (a million buttons would help nobody). In guild order,
 * each guild's owner first, then its seeded members by id; at most `limit`, with the total.
 */
export function signInUsers(state: EmulatorState, limit: number): { users: SignInUser[]; total: number } {
  const ids = new Set<string>();
  for (const guild of state.allGuilds()) {
    if (guild.ownerId !== state.botUserId) ids.add(guild.ownerId);
    for (const id of guild.seededMemberIds) if (guild.members.has(id)) ids.add(id.toString());
  }
  const users = [...ids].slice(0, limit).map((id) => ({
    id,
    ...userProfile(state, id),
    guilds: userGuilds(state, id).map((g) => ({ id: g.guild.id, name: g.guild.name, owner: g.owner })),
  }));
  return { users, total: ids.size };
}

export function isSignInUser(state: EmulatorState, userId: string): boolean {
  if (userId === state.botUserId) return false;
  const id = BigInt(userId);
  return state.allGuilds().some((g) => g.ownerId === userId || (g.isSeededMember(id) && g.members.has(id)));
}

/** The names the first guild seeding them gave, else the platform-neutral `user_<id>`. */
export function userProfile(state: EmulatorState, userId: string): UserProfile {
  for (const guild of state.allGuilds()) {
    const profile = guild.profile(userId);
    if (profile) return profile;
  }
  return { username: `user_${userId}`, globalName: null };
}

/** The guilds a user owns or is a member of, by id ascending (the platform's order), with their permissions there. */
export function userGuilds(state: EmulatorState, userId: string): UserGuild[] {
  const out: UserGuild[] = [];
  for (const guild of state.allGuilds()) {
    const permissions = guildPermissions(guild, userId);
    if (permissions !== undefined) out.push({ guild, owner: guild.ownerId === userId, permissions });
  }
  return out.sort((a, b) => (BigInt(a.guild.id) < BigInt(b.guild.id) ? -1 : 1));
}
