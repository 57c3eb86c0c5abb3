import { snowflake, userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';

/** Canonical decimal form of a guild or role id, or a 400 naming the argument. */
export function parseSnowflake(value: string | undefined, name: string): string {
  const r = snowflake.safeParse(value);
  if (!r.success)
    throw AppError.validation([{ field: name, message: r.error.issues[0]?.message ?? 'must be a numeric snowflake' }]);
  return BigInt(r.data).toString();
}

/**
 * A user id (contracts' `userIdProblem`: 17 to 20 digits, no leading zero, at most 2^64 − 1), or a 400 naming
 * the argument. List members and platform users stored as such (a guild's owner) alike: guild.owner_id and
 * admin_audit.actor_id are numeric(20), so every id the rule accepts is stored exactly (docs/api.md, "User IDs").
 */
export function parseUserId(value: string | undefined, name: string): string {
  const r = userId.safeParse(value);
  if (!r.success)
    throw AppError.validation([
      { field: name, message: r.error.issues[0]?.message ?? 'must be a 17 to 20 digit user id' },
    ]);
  return r.data;
}
