import { randomUUID } from 'node:crypto';
import { CONFIRM_WINDOW_MS } from '@rolelink/domain';
import { recordRemovalHeldNotification } from './notifications.repo';
import type { Queryable } from './queryable';

export type HeldChange = { changeId: string; previous: number; next: number; removals: number; createdAt: Date; confirmedAt: Date | null };

export async function recordHeldChange(db: Queryable, linkId: string, c: { previous: number; next: number; removals: number }): Promise<HeldChange> {
  const changeId = randomUUID();
  const { rows } = await db.query<HeldChange>(
    `INSERT INTO held_change (change_id, link_id, previous, next, removals, created_at)
     VALUES ($1, $2, $3, $4, $5, now())
     RETURNING change_id AS "changeId", previous, next, removals, created_at AS "createdAt", confirmed_at AS "confirmedAt"`,
    [changeId, linkId, c.previous, c.next, c.removals],
  );
  // The owner hears of it (issue 20, part 3) in the same transaction: a held write that rolls back notifies nobody.
  await recordRemovalHeldNotification(db, linkId, c);
  return rows[0]!;
}

export async function latestHeldChange(db: Queryable, linkId: string): Promise<(HeldChange & { usedAt: Date | null }) | null> {
  const { rows } = await db.query<HeldChange & { usedAt: Date | null }>(
    `SELECT change_id AS "changeId", previous, next, removals, created_at AS "createdAt", confirmed_at AS "confirmedAt", used_at AS "usedAt"
     FROM held_change WHERE link_id = $1 ORDER BY created_at DESC, change_id DESC LIMIT 1`,
    [linkId],
  );
  return rows[0] ?? null;
}

export type Confirmation = { changeId: string; via: 'header' | 'dashboard' } | { invalid: string };

/**
 * Decides whether a large removal may go through (spec 3.3): the plugin's X-RoleLink-Confirm naming the
 * latest change within one hour of its 409, or the owner's dashboard confirmation of the latest change
 * within one hour of confirming. Either is spent by the write it allows. Call inside the writer's
 * transaction (the link row is locked, so two writers cannot spend one confirmation).
 */
export async function findConfirmation(db: Queryable, linkId: string, header: string | undefined, now = new Date()): Promise<Confirmation | null> {
  const latest = await latestHeldChange(db, linkId);
  const within = (t: Date | null) => t !== null && now.getTime() - t.getTime() <= CONFIRM_WINDOW_MS;
  if (latest && latest.usedAt === null && within(latest.confirmedAt)) return { changeId: latest.changeId, via: 'dashboard' };
  if (header === undefined) return null;
  if (!latest || latest.changeId !== header) return { invalid: 'the confirmation does not name the latest held change' };
  if (latest.usedAt !== null) return { invalid: 'the confirmation was already used' };
  if (!within(latest.createdAt)) return { invalid: 'the confirmation expired (one hour)' };
  return { changeId: latest.changeId, via: 'header' };
}

export async function spendConfirmation(db: Queryable, changeId: string): Promise<void> {
  await db.query('UPDATE held_change SET used_at = now() WHERE change_id = $1', [changeId]);
}

/** The owner's "Apply removals": opens the one-hour window on the latest held change. */
export async function confirmLatestHeldChange(db: Queryable, linkId: string): Promise<HeldChange | null> {
  const { rows } = await db.query<HeldChange>(
    `UPDATE held_change SET confirmed_at = now()
     WHERE change_id = (SELECT change_id FROM held_change WHERE link_id = $1 ORDER BY created_at DESC, change_id DESC LIMIT 1)
       AND used_at IS NULL
     RETURNING change_id AS "changeId", previous, next, removals, created_at AS "createdAt", confirmed_at AS "confirmedAt"`,
    [linkId],
  );
  return rows[0] ?? null;
}
