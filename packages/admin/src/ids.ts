import { snowflake, userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';

/** Canonical decimal form of a guild or role id, or a 400 naming the argument. */
export function parseSnowflake(value: string | undefined, name: string): string {
  const r = snowflake.safeParse(value);
  if (!r.success) throw new AppError(400, `Validation error: ${name} must be a numeric snowflake`, 'validation');
  return BigInt(r.data).toString();
}

export function parseUserId(value: string | undefined, name: string): string {
  const r = userId.safeParse(value);
  if (!r.success) throw new AppError(400, `Validation error: ${name} must be a 17 to 20 digit user id`, 'validation');
  return r.data;
}
