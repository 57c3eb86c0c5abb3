import { userIdProblem } from '@rolelink/wire-types/user-id';
import { z } from 'zod';

/**
 * User ids (spec 2.2, 4.1): the one rule lives in @rolelink/wire-types/user-id (17 to 20 digits, no leading
 * zero, at most 2^64 − 1), shared with the database's encoders and the plugin SDK; the zod schema is here.
 * Stored as `id − 2^63` in a signed bigint (packages/db/src/client/user-id.ts, docs/architecture.md).
 */
export { MAX_USER_ID, USER_ID_PATTERN, isUserId, userIdProblem } from '@rolelink/wire-types/user-id';

/**
 * Guild, role and channel ids come from the platform and are stored as they are in signed bigint columns:
 * at most 2^63 − 1. A platform snowflake's top bits are its millisecond timestamp since 2015, so it reaches
 * 2^63 only in 2084; user ids come from plugins as well, which is why only they take the full 64 bits.
 */
export const MAX_BIGINT = 9223372036854775807n;

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

/** User ids: the rule of @rolelink/wire-types/user-id. */
export const userId = fromRule(userIdProblem);
