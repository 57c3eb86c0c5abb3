import { PermissionFlagsBits } from 'discord-api-types/v10';
import { z } from 'zod';

/**
 * The platform rules a guild's calls meet that a seed's roles and members do not express.
 * Defaults are what a new bot application and a new guild have; a correct installation switches
 * `membersIntent` on (the developer portal's Server Members intent). Changed at run time with
 * GET/PATCH /_emulator/guilds/:g/rules.
 */
export type GuildRules = {
  /** The application has the Server Members privileged intent: without it GET /guilds/:g/members answers 403 50001. */
  membersIntent: boolean;
  /** The bot is a member of the guild: without it guild routes answer 404 10004 (GET /guilds/:g) or 403 50001. */
  botInGuild: boolean;
  /** The guild requires 2FA for moderation (`mfa_level` 1). */
  mfaRequired: boolean;
  /** The application's owner has 2FA on their account. With `mfaRequired` and not this, role changes answer 403 60003. */
  ownerMfa: boolean;
};

/** The rules the guild itself keeps; `botInGuild` is the bot's membership, kept by the member store. */
export type StoredRules = Omit<GuildRules, 'botInGuild'>;

export const DEFAULT_RULES: StoredRules = { membersIntent: false, mfaRequired: false, ownerMfa: true };

export const rulesPatchSchema = z.strictObject({
  membersIntent: z.boolean().optional(),
  botInGuild: z.boolean().optional(),
  mfaRequired: z.boolean().optional(),
  ownerMfa: z.boolean().optional(),
}) satisfies z.ZodType<Partial<GuildRules>>;

/** What a correct installation has, for seeds: the intent switched on (the other rules' defaults are a correct install's). */
export const CORRECT_RULES: Partial<GuildRules> = { membersIntent: true };

/**
 * The bot role's permissions on a correct installation: Manage Roles (the bot's job) and View Audit Log
 * (drift repair reads the log). The invite link asks for both; seeds put them on the bot's role.
 */
export const CORRECT_BOT_PERMISSIONS: string = (
  PermissionFlagsBits.ManageRoles | PermissionFlagsBits.ViewAuditLog
).toString();

/**
 * Permissions marked `*` in the platform's permission table: with server-wide 2FA on (`mfa_level` 1)
 * the application's owner needs 2FA for the bot to use them (docs: topics/permissions, oauth2
 * "Two-Factor Authentication Requirement"). Manage Roles is one, so member role changes are refused.
 */
export const MFA_PERMISSIONS: bigint =
  PermissionFlagsBits.KickMembers |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.Administrator |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.ManageMessages |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageWebhooks |
  PermissionFlagsBits.ManageGuildExpressions |
  PermissionFlagsBits.ManageThreads |
  PermissionFlagsBits.ViewCreatorMonetizationAnalytics;

/** Whether the guild's 2FA requirement refuses an action needing `permission` (owner without 2FA, guild requiring it, a `*` permission). */
export function mfaRefuses(rules: Pick<GuildRules, 'mfaRequired' | 'ownerMfa'>, permission: bigint): boolean {
  return rules.mfaRequired && !rules.ownerMfa && (permission & MFA_PERMISSIONS) !== 0n;
}
