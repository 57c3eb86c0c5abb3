import type { LinkView } from '@rolelink/contracts';

type Numbers = Pick<NonNullable<LinkView['held_change']>, 'previous' | 'next' | 'removals' | 'additions'>;

const fmt = (n: number) => n.toLocaleString();
const plural = (n: number, one: string, many: string) => `${fmt(n)} ${n === 1 ? one : many}`;

/** "3,003 → 20 members (2,983 removals, 0 additions)": both kinds of change, so the numbers add up. */
export function heldNumbers(held: Numbers): string {
  return `${fmt(held.previous)} → ${plural(held.next, 'member', 'members')} (${plural(held.removals, 'removal', 'removals')}, ${plural(held.additions, 'addition', 'additions')})`;
}
