import { MAX_BIGINT, snowflake, userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';

/** Canonical decimal form of a guild or role id, or a 400 naming the argument. */
export function parseSnowflake(value: string | undefined, name: string): string {
  const r = snowflake.safeParse(value);
  if (!r.success) throw AppError.validation([{ field: name, message: r.error.issues[0]?.message ?? 'must be a numeric snowflake' }]);
  return BigInt(r.data).toString();
}

export function parseUserId(value: string | undefined, name: string): string {
  const r = userId.safeParse(value);
  if (!r.success) throw AppError.validation([{ field: name, message: r.error.issues[0]?.message ?? 'must be a 17 to 20 digit user id' }]);
  return r.data;
}

/**
 * A platform user stored as such (a guild's owner): a user id that also fits the signed bigint column,
 * like guild and role ids (docs/api.md, "User IDs"). Only list members take the full 64 bits.
 */
export function parsePlatformUserId(value: string | undefined, name: string): string {
  const id = parseUserId(value, name);
  if (BigInt(id) > MAX_BIGINT) throw AppError.validation([{ field: name, message: `"${id}" is above 9223372036854775807, the largest platform user id stored` }]);
  return id;
}
