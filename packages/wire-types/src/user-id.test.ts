import { INVALID_USER_IDS, VALID_USER_IDS } from '../../../test/support/user-id-cases';
import { isUserId, userIdProblem } from './user-id';

// isUserId checks 100,000 ids per request with string comparisons; userIdProblem states the rule and
// names the refusal. The two must give the same answer on every edge of the rule.
describe('the user-id rule', () => {
  it.each(VALID_USER_IDS.map((v) => [v]))('accepts %p', (v) => {
    expect(userIdProblem(v)).toBeNull();
    expect(isUserId(v)).toBe(true);
  });
  it.each(INVALID_USER_IDS.map((v) => [v]))('refuses %p', (v) => {
    expect(userIdProblem(v)).toEqual(expect.any(String));
    expect(isUserId(v)).toBe(false);
  });
});
