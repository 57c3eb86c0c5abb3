import { userIdProblem } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import { INVALID_USER_IDS, VALID_USER_IDS } from '../../../test/support/user-id-cases';
import { parseUserId } from './ids';

function thrown(f: () => unknown): AppError | null {
  try {
    f();
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

// A guild owner or a dashboard actor is a platform user: the same unsigned 64-bit id as a list member, one
// rule (contracts' userIdProblem), stored exactly (guild.owner_id and admin_audit.actor_id are numeric(20)).
describe('parseUserId (guild owners, list members)', () => {
  it.each(VALID_USER_IDS)('accepts %s, as userIdProblem does, and returns it unchanged', (id) => {
    expect(userIdProblem(id)).toBeNull();
    expect(parseUserId(id, 'owner')).toBe(id);
  });

  it.each(INVALID_USER_IDS.filter((v): v is string => typeof v === 'string'))(
    'refuses %j with userIdProblem’s message, naming the argument',
    (id) => {
      const problem = userIdProblem(id);
      expect(problem).not.toBeNull();
      expect(thrown(() => parseUserId(id, 'owner'))).toMatchObject({
        status: 400,
        issues: [{ field: 'owner', message: problem }],
      });
    },
  );
});
