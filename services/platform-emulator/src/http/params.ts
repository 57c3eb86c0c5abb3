import { MAX_USER_ID } from '@rolelink/wire-types/user-id';
import type { Request } from 'express';
import type { EmulatorState } from '../emulator-state';
import type { GuildState } from '../guild-state';
import { invalidFormBody, missingAccess, unknownGuild, unknownMember, unknownUser } from './platform-errors';

/**
 * Path and query parsing for platform routes. The service's `validate()` answers in our own error
 * shape; the emulator must answer like the platform (400 Invalid Form Body, code 50035), hence these.
 */
export function snowflake(value: unknown, field: string): string {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value) && BigInt(value) <= MAX_USER_ID) return value;
  throw invalidFormBody(field, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not snowflake.`);
}

export function pathSnowflake(req: Request, name: string, field: string): string {
  return snowflake(req.params[name], field);
}

/**
 * The path's guild, as the bot may reach it: 404 10004 for a guild that does not exist; for one the bot
 * is not in, 404 10004 on GET /guilds/{id} itself (`absent: 'unknown_guild'`: the platform stopped
 * telling apart "not there" and "not yours" there, discord-api-docs#5840) and 403 50001 Missing Access
 * on the routes under it. A signed-in user's token never reaches guild routes (bot only).
 */
export function guildOf(
  state: EmulatorState,
  req: Request,
  absent: 'unknown_guild' | 'missing_access' = 'missing_access',
): GuildState {
  const guild = state.guild(pathSnowflake(req, 'guildId', 'guild_id'));
  if (!guild) throw unknownGuild();
  if (!guild.hasBot(state.botUserId)) throw absent === 'unknown_guild' ? unknownGuild() : missingAccess();
  return guild;
}

/** A user id in a guild route: 404 10013 when no such account exists (or it was deleted), 404 10007 when it is not in the guild. */
export function memberOf(
  state: EmulatorState,
  guild: GuildState,
  req: Request,
): { userId: string; roles: readonly number[] } {
  const userId = pathSnowflake(req, 'userId', 'user_id');
  if (!state.knowsUser(userId)) throw unknownUser();
  const roles = guild.members.roles(BigInt(userId));
  if (!roles) throw unknownMember();
  return { userId, roles };
}

export function intQuery(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value))
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the platform's message shows a repeated or nested parameter as String() does
    throw invalidFormBody(field, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not int.`);
  const n = Number(value);
  if (n < min) throw invalidFormBody(field, 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${min}.`);
  if (n > max) throw invalidFormBody(field, 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${max}.`);
  return n;
}

export function boolQuery(value: unknown): boolean {
  return typeof value === 'string' && ['true', '1'].includes(value.toLowerCase());
}
