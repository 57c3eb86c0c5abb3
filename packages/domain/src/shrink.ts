/** Large-removal hold (spec 3.3, 8 rule 4): ≥25% of the list and ≥10 members, or emptying a non-empty list. */
export function isLargeRemoval(previous: number, next: number, removals: number): boolean {
  if (previous > 0 && next === 0) return true;
  return removals >= 10 && removals * 4 >= previous;
}

export function shrinkMessage(previous: number, next: number, removals: number): string {
  return (
    `This change would remove ${removals} of ${previous} users (${next} would remain). ` +
    'Resend it with header X-RoleLink-Confirm: <change_id> within one hour, or ask the server owner to apply the removals in the dashboard.'
  );
}
