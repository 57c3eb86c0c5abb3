import { isLargeRemoval, removalsThatHold, shrinkMessage } from './shrink';

describe('isLargeRemoval', () => {
  it('holds removing at least 25% and at least 10 members', () => {
    expect(isLargeRemoval(40, 30, 10)).toBe(true);
    expect(isLargeRemoval(100, 75, 25)).toBe(true);
  });

  it('lets through removals below either threshold', () => {
    expect(isLargeRemoval(100, 76, 24)).toBe(false);
    expect(isLargeRemoval(20, 11, 9)).toBe(false);
  });

  it('holds emptying any non-empty list, however small', () => {
    expect(isLargeRemoval(1, 0, 1)).toBe(true);
    expect(isLargeRemoval(0, 0, 0)).toBe(false);
  });

  it('judges removals, not the net size change, when users are swapped', () => {
    expect(isLargeRemoval(100, 100, 50)).toBe(true);
  });
});

describe('removalsThatHold', () => {
  it('is the fewest removals isLargeRemoval holds, for every size up to 400', () => {
    for (let previous = 0; previous <= 400; previous++) {
      const fewest = removalsThatHold(previous);
      // The new list keeps one user so that only the removals decide (emptying is held regardless).
      const held = (r: number) => isLargeRemoval(previous, Math.max(1, previous - r), r);
      if (fewest === null) {
        for (let r = 0; r <= previous; r++) expect(held(r)).toBe(false);
      } else {
        expect(held(fewest)).toBe(true);
        expect(held(fewest - 1)).toBe(false);
      }
    }
  });

  it('needs 10 removals of 20, 25 of 100, and none below 10 users', () => {
    expect(removalsThatHold(20)).toBe(10);
    expect(removalsThatHold(100)).toBe(25);
    expect(removalsThatHold(101)).toBe(26);
    expect(removalsThatHold(9)).toBeNull();
  });
});

describe('shrinkMessage', () => {
  it('keeps the words of a list replaced by a smaller one', () => {
    expect(shrinkMessage(20, 10, 10)).toMatch(
      /^This change would remove 10 of 20 users \(10 would remain\)\. Resend it/,
    );
  });

  it("says that a hand-over's first list is judged against the role's current holders", () => {
    const message = shrinkMessage(20, 15, 10, 'role_holders');
    expect(message).toMatch(
      /^This first list would remove the role from 10 of its 20 current holders \(10 of them are on the list of 15\)\./,
    );
    expect(message).toMatch(/the role's current holders count as the previous list/);
    expect(message).toMatch(/X-RoleLink-Confirm: <change_id>/);
    expect(message).not.toMatch(/users/);
    expect(shrinkMessage(3, 0, 3, 'role_holders')).toMatch(/from 3 of its 3 current holders \(the list is empty\)/);
    expect(shrinkMessage(1, 0, 1, 'role_holders')).toMatch(/from 1 of its 1 current holder \(/);
  });
});
