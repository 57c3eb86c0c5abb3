/** Large-removal hold (spec 3.3, 8 rule 4): ≥25% of the list and ≥10 members, or emptying a non-empty list. */
export function isLargeRemoval(previous: number, next: number, removals: number): boolean {
  if (previous > 0 && next === 0) return true;
  return removals >= 10 && removals * 4 >= previous;
}

/**
 * The fewest removals from `previous` users that isLargeRemoval holds when the new list is not empty;
 * null when no such number exists (fewer than 10 users: only emptying the list is held).
 */
export function removalsThatHold(previous: number): number | null {
  const fewest = Math.max(10, Math.ceil(previous / 4));
  return fewest <= previous ? fewest : null;
}

/**
 * What was measured against what: a list against the list it replaces, or a hand-over link's first list
 * against the role's holders (its `previous` are holders, not listed users: the message must say so, or
 * a plugin that never sent a list reads "remove 10 of 20 users" as someone else's list).
 */
export type ShrinkBaseline = 'list' | 'role_holders';

const CONFIRM_HINT =
  'Resend it with header X-RoleLink-Confirm: <change_id> within one hour, or ask the server owner to apply the removals in the dashboard.';

export function shrinkMessage(
  previous: number,
  next: number,
  removals: number,
  against: ShrinkBaseline = 'list',
): string {
  if (against === 'role_holders') {
    const kept = previous - removals;
    const holders = previous === 1 ? 'holder' : 'holders';
    const onList =
      next === 0 ? 'the list is empty' : `${kept} of them ${kept === 1 ? 'is' : 'are'} on the list of ${next}`;
    return (
      `This first list would remove the role from ${removals} of its ${previous} current ${holders} (${onList}). ` +
      "On a hand-over link the role's current holders count as the previous list, so the shrink check judges the first list against them. " +
      CONFIRM_HINT
    );
  }
  return `This change would remove ${removals} of ${previous} users (${next} would remain). ${CONFIRM_HINT}`;
}
