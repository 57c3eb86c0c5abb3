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

/**
 * The pending count a reader reports (GET /users, the dashboard's card, `rolelink link show`): the
 * worker's count (every change still to make, removals included), and until the worker has picked up the
 * latest write (`syncBehind`) at least the distance between the synced set and what it last applied.
 */
export function reportedPending(link: { syncBehind: boolean; pendingCount: number; appliedCount: number }, desired: number): number {
  return link.syncBehind ? Math.max(link.pendingCount, Math.abs(desired - link.appliedCount)) : link.pendingCount;
}
