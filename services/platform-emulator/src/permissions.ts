import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { GuildState } from './guild-state';

/** Every permission bit the platform defines: what it reports for a guild's owner and for administrators. */
export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/**
 * A user's guild-level permissions as the platform computes them: the owner has every bit; anyone else
 * has @everyone's bits OR'ed with those of their roles, and Administrator among them means every bit.
 * Undefined when the user is neither the owner nor a member. (Channel overwrites are not modelled.)
 */
export function guildPermissions(guild: GuildState, userId: string): bigint | undefined {
  if (guild.ownerId === userId) return ALL_PERMISSIONS;
  const roles = guild.members.roles(BigInt(userId));
  if (!roles) return undefined;
  let bits = guild.everyone.permissions;
  for (const index of roles) bits |= guild.roles[index]?.permissions ?? 0n;
  return bits & PermissionFlagsBits.Administrator ? ALL_PERMISSIONS : bits;
}
