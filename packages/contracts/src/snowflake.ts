import { z } from 'zod';

export const USER_ID_PATTERN = /^\d{17,20}$/;
/** Snowflakes are stored as PostgreSQL bigint; larger numbers cannot be stored and are refused. */
export const MAX_BIGINT = 9223372036854775807n;

/** Guild and role ids in paths: numeric strings (spec 4.1), bounded to what fits a PostgreSQL bigint. */
export const snowflake = z
  .string()
  .regex(/^\d{1,20}$/, 'must be a numeric string')
  .refine((v) => !/^\d+$/.test(v) || BigInt(v) <= MAX_BIGINT, 'out of range');

/** User ids: 17 to 20 digits (spec 2.2), and within bigint range since they are stored as bigint. */
export const userId = z
  .string()
  .regex(/^\d{17,20}$/, 'must be a 17 to 20 digit snowflake')
  .refine((v) => !/^\d+$/.test(v) || v.length < 19 || BigInt(v) <= MAX_BIGINT, 'out of range');

export function isUserId(v: unknown): v is string {
  return typeof v === 'string' && USER_ID_PATTERN.test(v) && (v.length < 19 || BigInt(v) <= MAX_BIGINT);
}
