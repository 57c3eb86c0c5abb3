import { z } from 'zod';

/**
 * User ids (spec 2.2, 4.1): 17 to 20 digits, no leading zero, at most 2^64 − 1 (an unsigned 64-bit
 * snowflake). A snowflake never starts with 0, and "042" and "42" are one number: accepting the padded
 * form merged two distinct strings into one stored id (issue 24), so it is refused, naming the value.
 * Stored as `id − 2^63` in a signed bigint (packages/db/src/user-id.ts, docs/architecture.md).
 */
export const USER_ID_PATTERN = /^[1-9]\d{16,19}$/;
export { MAX_USER_ID } from '@rolelink/wire-types/user-id';
/**
 * Guild, role and channel ids come from the platform and are stored as they are in signed bigint columns:
 * at most 2^63 − 1. A platform snowflake's top bits are its millisecond timestamp since 2015, so it reaches
 * 2^63 only in 2084; user ids come from plugins as well, which is why only they take the full 64 bits.
 */
export const MAX_BIGINT = 9223372036854775807n;

const MAX_USER_ID_DIGITS = '18446744073709551615';

/** Why `v` is not a user id, naming it; null when it is one. The one statement of the rule (body.ts's fast check is tested against it). */
export function userIdProblem(v: string): string | null {
  if (!/^\d{17,20}$/.test(v)) return 'must be a 17 to 20 digit snowflake string';
  if (v.charCodeAt(0) === 48) return `"${v}" has a leading zero; a snowflake never starts with 0`;
  if (v.length === 20 && v > MAX_USER_ID_DIGITS) return `"${v}" is above 18446744073709551615 (2^64 - 1)`;
  return null;
}

/** Why `v` is not a guild, role or channel id, naming it; null when it is one. */
export function snowflakeProblem(v: string): string | null {
  if (!/^\d{1,20}$/.test(v)) return 'must be a numeric string';
  if (v.length > 1 && v.charCodeAt(0) === 48) return `"${v}" has a leading zero; a snowflake never starts with 0`;
  if (BigInt(v) > MAX_BIGINT) return 'out of range';
  return null;
}

function fromRule(problem: (v: string) => string | null) {
  return z.string().superRefine((v, ctx) => {
    const message = problem(v);
    if (message) ctx.addIssue({ code: 'custom', message });
  });
}

/** Guild, role and channel ids in paths and bodies: numeric strings (spec 4.1) without a leading zero, within a signed bigint. */
export const snowflake = fromRule(snowflakeProblem);

/** User ids: see USER_ID_PATTERN. */
export const userId = fromRule(userIdProblem);

export function isUserId(v: unknown): v is string {
  return typeof v === 'string' && userIdProblem(v) === null;
}
