import { isUserId, userIdProblem } from '@rolelink/contracts';
import { INVALID_USER_IDS, VALID_USER_IDS } from '../../../test/support/user-id-cases';
import { isStorableUserId, readIdArray } from './body';
import { AppError } from '@rolelink/runtime';

// body.ts checks 100,000 ids per request with its own string comparisons instead of contracts' rule:
// the two must give the same answer on every edge of the rule.
describe('the fast body check agrees with contracts', () => {
  it.each([...VALID_USER_IDS, ...INVALID_USER_IDS].map((v) => [v]))('%p', (v) => {
    expect(isStorableUserId(v)).toBe(isUserId(v));
  });

  it('refuses a padded id with contracts message, naming it and its index', () => {
    const tooMany = () => new AppError(413, 'too many', 'too_many');
    let caught: unknown;
    try {
      readIdArray(['10000000000000000', '00000000000000042'], 10, tooMany);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).toBody({ fieldErrors: false })).toEqual({ statusCode: 400, message: 'Validation error', details: [`body.1: ${userIdProblem('00000000000000042')}`] });
  });
});
