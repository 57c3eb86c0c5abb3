import { userIdProblem } from '@rolelink/contracts';
import { z } from 'zod';

/**
 * A user-ID input (the member look-up, an override): the contract's one rule (`userIdProblem`, from
 * @rolelink/wire-types), trimmed, its problem named in the message the field shows.
 */
export const userIdField = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    const problem = userIdProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: `Enter a user ID of 17 to 20 digits: ${problem}.` });
  });
