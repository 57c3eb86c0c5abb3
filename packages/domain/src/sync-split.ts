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
 * `unreachable`: listed users no call can give the role to now, by the platform's last answer (not in the
 * server, 10007; a deleted account, 10013: `listedUnreachable` in @rolelink/db/sync). The worker counts
 * them among the users still without the role; they are no change it can make, so they are left out here
 * and every reader counts them apart: a list that names them still reaches "up to date".
 */
export function reportedPending(
  link: { syncBehind: boolean; pendingCount: number; appliedCount: number },
  desired: number,
  unreachable: number,
): number {
  const measured = link.syncBehind
    ? Math.max(link.pendingCount, Math.abs(desired - link.appliedCount))
    : link.pendingCount;
  return Math.max(0, measured - unreachable);
}

/**
 * `pending` split into adds and removals (GET /users meta `pending_adds`, `pending_removals`; docs/api.md).
 * The worker measures one number, every change still to make; the split follows from two facts: the
 * changes sum to `pending`, and once they are made the bot's holders (`applied`) number `desired`, so
 * adds − removals = desired − applied. Solving both gives each half; when the measurements disagree (a
 * pending count behind the last write, members the platform cannot give the role) the halves are
 * clamped to [0, pending] and still sum to it. Right after a replace from 250,000 to 30 members, almost
 * all of pending is removals: the holders who must lose the role.
 */
export function splitPending(pending: number, desired: number, applied: number): { adds: number; removals: number } {
  const net = desired - applied;
  const adds = Math.min(pending, Math.max(0, Math.round((pending + net) / 2)));
  return { adds, removals: pending - adds };
}
