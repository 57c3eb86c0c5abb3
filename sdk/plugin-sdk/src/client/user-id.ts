import { isUserId, userIdProblem } from '@rolelink/wire-types/user-id';
import { RoleLinkApiError, withFirstDetail } from './errors';

/**
 * The service's user id rule (spec 2.2), the one copy in @rolelink/wire-types/user-id, which the SDK's build
 * compiles into its package (scripts/build.mjs). Checked here so that a bad id fails before a 100,000-id
 * request is sent, and so a padded id ("0123…") is never sent at all: it is a different string for the same
 * number. Refusals are the service's own 400 (a RoleLinkApiError with the §7 body and no request id), so a
 * caller handles one kind of error whichever side refused.
 */
export { userIdProblem };

function refuse(field: string, message: string, method: string, url: string): never {
  const details = [`${field}: ${message}`];
  throw new RoleLinkApiError(
    400,
    withFirstDetail('Validation error', details),
    method,
    url,
    { statusCode: 400, message: 'Validation error', details },
    null,
  );
}

export function checkUserId(v: string, method: string, url: string): void {
  const problem = userIdProblem(v);
  if (problem) refuse('params.userId', problem, method, url);
}

export function checkUserIds(ids: readonly string[], method: string, url: string): void {
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i];
    if (isUserId(v)) continue;
    refuse(`body.${i}`, userIdProblem(v)!, method, url);
  }
}
