import { RoleLinkApiError } from './errors';

const USER_ID = /^[1-9]\d{16,19}$/;
const MAX_DIGITS = '18446744073709551615';

/**
 * The service's user id rule (spec 2.2; @rolelink/contracts' `userIdProblem`, which user-id.test.ts checks
 * this against): 17 to 20 digits, no leading zero, at most 2^64 - 1. Checked here so that a bad id fails
 * before a 100,000-id request is sent, and so a padded id ("0123…") is never sent at all: it is a different
 * string for the same number. Refusals are the service's own 400 (a RoleLinkApiError with the §7 body and
 * no request id), so a caller handles one kind of error whichever side refused.
 */
export function userIdProblem(v: unknown): string | null {
  if (typeof v !== 'string' || !/^\d{17,20}$/.test(v)) return 'must be a 17 to 20 digit snowflake string';
  if (v.charCodeAt(0) === 48) return `"${v}" has a leading zero; a snowflake never starts with 0`;
  if (v.length === 20 && v > MAX_DIGITS) return `"${v}" is above 18446744073709551615 (2^64 - 1)`;
  return null;
}

function refuse(field: string, message: string, method: string, url: string): never {
  throw new RoleLinkApiError(400, 'Validation error', method, url, { statusCode: 400, message: 'Validation error', details: [`${field}: ${message}`] }, null);
}

export function checkUserId(v: string, method: string, url: string): void {
  const problem = userIdProblem(v);
  if (problem) refuse('params.userId', problem, method, url);
}

export function checkUserIds(ids: readonly string[], method: string, url: string): void {
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i];
    if (typeof v === 'string' && USER_ID.test(v) && (v.length < 20 || v <= MAX_DIGITS)) continue;
    refuse(`body.${i}`, userIdProblem(v)!, method, url);
  }
}
