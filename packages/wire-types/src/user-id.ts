/**
 * The largest user id (2^64 - 1): user ids are unsigned 64-bit snowflakes (spec 2.2). Its one home, a
 * value beside the wire's types: @rolelink/contracts validates against it and @rolelink/db walks ranges up
 * to it. Imported through `@rolelink/wire-types/user-id`, so the package's index stays types only.
 */
export const MAX_USER_ID = 18446744073709551615n;
