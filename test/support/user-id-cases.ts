/**
 * User ids on the edges of the rule (17 to 20 digits, no leading zero, at most 2^64 - 1), shared by every
 * test of a copy of the rule (contracts, the API's fast body check, the SDK) so the copies cannot drift.
 */
export const TWO_POW_63 = 9223372036854775808n;

/** 17, 18, 19 and 20 digits together, both sides of 2^63 and the largest: in ascending numeric order. */
export const MIXED_WIDTH_IDS = [
  '10000000000000000', // 17 digits, the smallest
  '99999999999999999',
  '100000000000000000', // 18
  '999999999999999999',
  '1000000000000000000', // 19
  '9223372036854775807', // 2^63 - 1
  '9223372036854775808', // 2^63
  '9223372036854775809',
  '9999999999999999999',
  '10000000000000000000', // 20
  '10000000000000000001',
  '18446744073709551614',
  '18446744073709551615', // 2^64 - 1
] as const;

export const VALID_USER_IDS: readonly string[] = MIXED_WIDTH_IDS;

export const INVALID_USER_IDS: readonly unknown[] = [
  '0100000000000009999', // leading zero: the same number as 100000000000009999 (18 digits)
  '00000000000000042',
  '09223372036854775808',
  '01234567890123456',
  '1000000000000000', // 16 digits
  '184467440737095516150', // 21
  '18446744073709551616', // 2^64
  '99999999999999999999',
  '1234567890123456a',
  ' 12345678901234567',
  '',
  1e16, // a JSON number, not a string (17 digits when printed)
  null,
];
