import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { AppError } from '@rolelink/runtime';
import type { GuildState, RoleDef } from './guild-state';
import { mfaRefuses } from './guild-rules';
import { missingPermissions, twoFactorRequired } from './http/platform-errors';
import { guildPermissions } from './permissions';

/**
 * Why the platform refuses the bot's change of a member's role, in the order it checks: Manage Roles in
 * the bot's effective guild permissions (@everyone + its roles, Administrator = all), else 403 50013;
 * then the guild's 2FA requirement (Manage Roles is a `*` permission: with `mfa_level` 1 an owner without
 * 2FA gets 403 60003); then the role: never a managed one, only strictly below the bot's highest role,
 * else 403 50013. Undefined when the change is allowed.
 *
 * Written here, not taken from packages/domain's roleAccessProblem: the emulator is the oracle the
 * product's own reading of these rules is tested against, so it must not share that code.
 */
export function roleChangeRefusal(guild: GuildState, role: RoleDef, botUserId: string): AppError | undefined {
  return memberRolesRefusal(guild, botUserId) ?? (guild.canManage(role, botUserId) ? undefined : missingPermissions());
}

/** The checks that do not depend on the role (Manage Roles, then 2FA): a PATCH of a member's `roles` meets them even when it changes nothing. */
export function memberRolesRefusal(guild: GuildState, botUserId: string): AppError | undefined {
  const held = guildPermissions(guild, botUserId) ?? 0n;
  if ((held & PermissionFlagsBits.ManageRoles) === 0n) return missingPermissions();
  if (mfaRefuses(guild.rules(botUserId), PermissionFlagsBits.ManageRoles)) return twoFactorRequired();
  return undefined;
}
