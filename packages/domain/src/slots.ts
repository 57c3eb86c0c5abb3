import { PLAN_LIMITS, type Plan } from './plans';

/**
 * Integration slots of a guild (spec 3.1, 8): free = 2 + paid slots; premium = up to 210 (paid slots
 * count towards the same quota, capped at 210). We read "Up to 210" as the premium allowance.
 */
export function slotAllowance(plan: Plan, paidSlots: number): number {
  const p = PLAN_LIMITS[plan];
  const slots = p.baseSlots + (plan === 'free' ? Math.max(0, paidSlots) : 0);
  return p.maxSlots === null ? slots : Math.min(p.maxSlots, slots);
}

/**
 * A link is paused when it is among the newest beyond the allowance. Derived from creation order
 * each time, so a downgrade pauses and an upgrade or a deletion resumes with no stored flag to fix.
 * `rank` is the link's 0-based position among its guild's links, oldest first.
 */
export function isPaused(rank: number, plan: Plan, paidSlots: number): boolean {
  return rank >= slotAllowance(plan, paidSlots);
}
