/**
 * The one user-ID rule (spec 2.2), beside the wire's types because every side of the wire checks it: the
 * API (contracts' zod `userId`, the PUT body reader), the database's encoders and the plugin SDK (bundled
 * into its npm package). Imported through `@rolelink/wire-types/user-id`, so the package's index stays
 * types only.
 *
 * A user id is 17 to 20 digits, no leading zero, at most 2^64 - 1 (an unsigned 64-bit snowflake). A
 * snowflake never starts with 0, and "042" and "42" are one number: accepting the padded form merged two
 * distinct strings into one stored id, so it is refused, naming the value.
 */
export const MAX_USER_ID = 18446744073709551615n;
/** MAX_USER_ID's digits: a 20-digit id is in range when it compares no greater, as a string (no BigInt per id). */
export const MAX_USER_ID_DIGITS = '18446744073709551615';
export const USER_ID_MIN_DIGITS = 17;
export const USER_ID_MAX_DIGITS = 20;
export const USER_ID_PATTERN = /^[1-9]\d{16,19}$/;

/**
 * Whether `v` is a user id, without a BigInt: today's snowflakes have 19 digits, and parsing each one was
 * most of the validation time of a 100,000-id body, against little for comparing digit strings.
 */
export function isUserId(v: unknown): v is string {
  return typeof v === 'string' && USER_ID_PATTERN.test(v) && (v.length < USER_ID_MAX_DIGITS || v <= MAX_USER_ID_DIGITS);
}

/** Why `v` is not a user id, naming it; null when it is one. */
export function userIdProblem(v: unknown): string | null {
  if (typeof v !== 'string' || !/^\d{17,20}$/.test(v)) return 'must be a 17 to 20 digit snowflake string';
  if (v.charCodeAt(0) === 48) return `"${v}" has a leading zero; a snowflake never starts with 0`;
  if (v.length === USER_ID_MAX_DIGITS && v > MAX_USER_ID_DIGITS)
    return `"${v}" is above 18446744073709551615 (2^64 - 1)`;
  return null;
}
