import { userIdField } from './user-id-field';

describe('userIdField', () => {
  it('takes a user ID, trimmed', () => {
    expect(userIdField.parse(' 123456789012345678 ')).toBe('123456789012345678');
  });

  it('names the problem of anything else', () => {
    const r = userIdField.safeParse('12ab');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/^Enter a user ID of 17 to 20 digits: .+\.$/);
    expect(userIdField.safeParse('').success).toBe(false);
  });
});
