import { userIdProblem } from '@rolelink/contracts';
import { INVALID_USER_IDS, VALID_USER_IDS } from '../../../../test/support/user-id-cases';
import { readIdArray } from './id-items';
import { AppError } from '@rolelink/runtime';

describe('an id array body', () => {
  const tooMany = () => new AppError(413, 'too many', 'too_many');
  it.each(VALID_USER_IDS.map((v) => [v]))('takes %p', (v) => expect(readIdArray([v], 10, tooMany)).toEqual([v]));
  it.each(INVALID_USER_IDS.map((v) => [v]))('refuses %p', (v) =>
    expect(() => readIdArray([v], 10, tooMany)).toThrow(AppError),
  );

  it('refuses a padded id with contracts message, naming it and its index', () => {
    const tooMany = () => new AppError(413, 'too many', 'too_many');
    let caught: unknown;
    try {
      readIdArray(['10000000000000000', '00000000000000042'], 10, tooMany);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).toBody({ fieldErrors: false })).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: [`body.1: ${userIdProblem('00000000000000042')}`],
    });
  });
});
