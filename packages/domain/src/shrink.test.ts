import { isLargeRemoval } from './shrink';

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
