import { PLAN_LIMITS, type Plan } from './plans';

/**
 * The synced set is the lowest `syncedLimit` user ids; the rest are held (spec 1, 8 rule 3).
 * Counts only: the sets themselves are index range scans in PostgreSQL.
 */
export function syncedLimit(plan: Plan): number {
  return PLAN_LIMITS[plan].syncedUsers;
}

export function splitCounts(userCount: number, plan: Plan): { synced: number; held: number } {
  const synced = Math.min(userCount, syncedLimit(plan));
  return { synced, held: userCount - synced };
}
