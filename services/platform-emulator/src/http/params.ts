import { MAX_USER_ID } from '@rolelink/wire-types/user-id';
import type { Request } from 'express';
import type { EmulatorState } from '../emulator-state';
import type { GuildState } from '../guild-state';
import { invalidFormBody, unknownGuild } from './platform-errors';

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

export function guildOf(state: EmulatorState, req: Request): GuildState {
  const guild = state.guild(pathSnowflake(req, 'guildId', 'guild_id'));
  if (!guild) throw unknownGuild();
  return guild;
}

export function intQuery(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the platform's message shows a repeated or nested parameter as String() does
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw invalidFormBody(field, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not int.`);
  const n = Number(value);
  if (n < min) throw invalidFormBody(field, 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${min}.`);
  if (n > max) throw invalidFormBody(field, 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${max}.`);
  return n;
}

export function boolQuery(value: unknown): boolean {
  return typeof value === 'string' && ['true', '1'].includes(value.toLowerCase());
}
