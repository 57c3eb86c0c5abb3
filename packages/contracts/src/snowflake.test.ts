import { INVALID_USER_IDS, VALID_USER_IDS } from '../../../test/support/user-id-cases';
import { isUserId, snowflake, userId, userIdProblem } from './snowflake';

describe('user ids', () => {
  it.each(VALID_USER_IDS)('accepts %s', (v) => {
    expect(isUserId(v)).toBe(true);
    expect(userId.safeParse(v).success).toBe(true);
  });

  it.each(INVALID_USER_IDS.map((v) => [v]))('refuses %p', (v) => {
    expect(isUserId(v)).toBe(false);
    expect(userId.safeParse(v).success).toBe(false);
  });

  it('names a zero-padded id in the message (it would merge into the unpadded one)', () => {
    expect(userIdProblem('0100000000000009999')).toBe(
      '"0100000000000009999" has a leading zero; a snowflake never starts with 0',
    );
    expect(userId.safeParse('00000000000000042').error?.issues.map((i) => i.message)).toEqual([
      '"00000000000000042" has a leading zero; a snowflake never starts with 0',
    ]);
  });
});

describe('guild, role and channel ids', () => {
  it('refuses a leading zero and anything above a signed bigint', () => {
    expect(snowflake.safeParse('0123').error?.issues[0]?.message).toBe(
      '"0123" has a leading zero; a snowflake never starts with 0',
    );
    expect(snowflake.safeParse('9223372036854775808').success).toBe(false);
    expect(snowflake.safeParse('9223372036854775807').success).toBe(true);
    expect(snowflake.safeParse('0').success).toBe(true);
  });
});
