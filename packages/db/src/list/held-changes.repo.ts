import { randomUUID } from 'node:crypto';
import { CONFIRM_WINDOW_MS } from '@rolelink/domain';
import { recordRemovalHeldNotification } from '../notifications/notifications.repo';
import { recordEvent } from '../events/plugin-events.repo';
import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

/**
 * `additions`: members of the new list who are not among the `previous` (the list, or for a hand-over's
 * first list the role's holders). Not stored: it follows from the three numbers the spec's 409 carries,
 * since next = previous − removals + additions for both kinds of baseline (list-replace.repo's
 * measureRemovals counts removals against the same baseline as previous).
 */
/**
 * `shrink`: a plugin's large removal, held at the API before anything was written (spec 4.1 rule 6).
 * `admin_source`: removals the bot held after the list was written, because the link's role is those
 * members' only Administrator or Manage Server (docs/sync-engine.md "Admin-source holds").
 */
export type HeldKind = 'shrink' | 'admin_source';

export type HeldChange = {
  changeId: string;
  kind: HeldKind;
  previous: number;
  next: number;
  removals: number;
  additions: number;
  /** The first few members (by user id) the held list left out. */
  removalSample: string[];
  createdAt: Date;
  confirmedAt: Date | null;
};

/** How many of the members a held list leaves out are recorded with the hold (and named before Apply removals). */
export const REMOVAL_SAMPLE = 5;

const COLUMNS = `change_id AS "changeId", kind, previous, next, removals, next - previous + removals AS additions,
  ARRAY(SELECT ${fromStored('x')} FROM unnest(removal_sample) WITH ORDINALITY AS s(x, o) ORDER BY o) AS "removalSample", created_at AS "createdAt", confirmed_at AS "confirmedAt"`;

export async function recordHeldChange(
  db: Queryable,
  linkId: string,
  c: { previous: number; next: number; removals: number; removalSample: readonly string[]; kind?: HeldKind },
): Promise<HeldChange> {
  const changeId = randomUUID();
  const { rows } = await db.query<HeldChange>(
    `INSERT INTO held_change (change_id, link_id, previous, next, removals, removal_sample, kind, created_at)
     VALUES ($1, $2, $3, $4, $5, ARRAY(SELECT ${toStored('x')} FROM unnest($6::numeric[]) WITH ORDINALITY AS s(x, o) ORDER BY o), $7, now())
     RETURNING ${COLUMNS}`,
    [changeId, linkId, c.previous, c.next, c.removals, c.removalSample, c.kind ?? 'shrink'],
  );
  // The owner hears of it in the same transaction: a held write that rolls back notifies nobody.
  await recordRemovalHeldNotification(db, linkId, {
    previous: c.previous,
    next: c.next,
    removals: c.removals,
    ...(c.kind === 'admin_source' ? { kind: c.kind } : {}),
  });
  // And the plugin, if it asked for it (docs/api.md "Events to plugins"), in the same transaction.
  await recordEvent(db, linkId, 'removal.held', {
    change_id: changeId,
    previous: c.previous,
    next: c.next,
    removals: c.removals,
  });
  return rows[0]!;
}

/** The latest held change of the link, of either kind unless `kind` names one. */
export async function latestHeldChange(
  db: Queryable,
  linkId: string,
  kind?: HeldKind,
): Promise<(HeldChange & { usedAt: Date | null }) | null> {
  const { rows } = await db.query<HeldChange & { usedAt: Date | null }>(
    `SELECT ${COLUMNS}, used_at AS "usedAt"
     FROM held_change WHERE link_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY created_at DESC, change_id DESC LIMIT 1`,
    [linkId, kind ?? null],
  );
  return rows[0] ?? null;
}

/**
 * The bot's hold of a removal that would take `userId`'s only Administrator or Manage Server:
 * added to the link's pending admin-source hold, or a new one (which notifies the owner and tells the
 * plugin `removal.held`, as a shrink hold does). The hold lists every member it holds (at most
 * MAX_ADMIN_HOLD; admins are few). Idempotent per member. Returns the hold.
 */
export const MAX_ADMIN_HOLD = 1_000;
export async function holdAdminRemoval(db: Queryable, linkId: string, userId: string): Promise<HeldChange> {
  const pending = await latestHeldChange(db, linkId, 'admin_source');
  if (pending && pending.usedAt === null && pending.confirmedAt === null) {
    if (pending.removalSample.includes(userId) || pending.removalSample.length >= MAX_ADMIN_HOLD) return pending;
    const { rows } = await db.query<HeldChange>(
      `UPDATE held_change SET removal_sample = removal_sample || ${toStored('$2')}::bigint, removals = removals + 1, previous = previous + 1
       WHERE change_id = $1 RETURNING ${COLUMNS}`,
      [pending.changeId, userId],
    );
    return rows[0]!;
  }
  // The numbers count the held members only (previous = removals, next 0): the list itself was written.
  return recordHeldChange(db, linkId, {
    previous: 1,
    next: 0,
    removals: 1,
    removalSample: [userId],
    kind: 'admin_source',
  });
}

export type Confirmation = { changeId: string; via: 'header' | 'dashboard' } | { invalid: string };

/**
 * Decides whether a large removal may go through (spec 3.3): the plugin's X-RoleLink-Confirm naming the
 * latest change within one hour of its 409, or the owner's dashboard confirmation of the latest change
 * within one hour of confirming. Either is spent by the write it allows. Call inside the writer's
 * transaction (the link row is locked, so two writers cannot spend one confirmation).
 */
export async function findConfirmation(
  db: Queryable,
  linkId: string,
  header: string | undefined,
  now = new Date(),
): Promise<Confirmation | null> {
  // Only a shrink hold is the plugin's to confirm: the bot's admin-source holds are the owner's alone.
  const latest = await latestHeldChange(db, linkId, 'shrink');
  const within = (t: Date | null) => t !== null && now.getTime() - t.getTime() <= CONFIRM_WINDOW_MS;
  if (latest && latest.usedAt === null && within(latest.confirmedAt))
    return { changeId: latest.changeId, via: 'dashboard' };
  if (header === undefined) return null;
  if (!latest || latest.changeId !== header)
    return { invalid: 'the confirmation does not name the latest held change' };
  if (latest.usedAt !== null) return { invalid: 'the confirmation was already used' };
  if (!within(latest.createdAt)) return { invalid: 'the confirmation expired (one hour)' };
  return { changeId: latest.changeId, via: 'header' };
}

export async function spendConfirmation(db: Queryable, changeId: string): Promise<void> {
  await db.query('UPDATE held_change SET used_at = now() WHERE change_id = $1', [changeId]);
}

/**
 * The owner's "Apply removals": opens the one-hour window on the latest held change. With `changeId` (the
 * change the owner's dialog showed), only when that is still the latest of its kind: a newer hold is never
 * confirmed unseen.
 */
export async function confirmLatestHeldChange(
  db: Queryable,
  linkId: string,
  changeId?: string,
): Promise<HeldChange | null> {
  // An admin-source hold is spent as it is confirmed: the walk it asks for removes its members (they are
  // no longer listed), within the window, and nothing else waits on it.
  const { rows } = await db.query<HeldChange>(
    `UPDATE held_change SET confirmed_at = now(), used_at = CASE WHEN kind = 'admin_source' THEN now() ELSE used_at END
     WHERE change_id = (SELECT change_id FROM held_change
                         WHERE link_id = $1 AND ($2::uuid IS NULL OR kind = (SELECT kind FROM held_change WHERE change_id = $2::uuid))
                         ORDER BY created_at DESC, change_id DESC LIMIT 1)
       AND used_at IS NULL AND ($2::uuid IS NULL OR change_id = $2::uuid)
     RETURNING ${COLUMNS}`,
    [linkId, changeId ?? null],
  );
  return rows[0] ?? null;
}

/** A confirmed hold with what happened since: the resent list (`usedAt`) and the owner's last resend request. */
export type ConfirmedHeldChange = HeldChange & {
  confirmedAt: Date;
  usedAt: Date | null;
  resendRequestedAt: Date | null;
};

/**
 * The link's latest hold the owner applied, of either kind unless `kind` names one (what "Removals in
 * progress" and "Ask the plugin to resend" are about), or null when none was ever applied.
 */
export async function latestConfirmedHeldChange(
  db: Queryable,
  linkId: string,
  kind?: HeldKind,
): Promise<ConfirmedHeldChange | null> {
  const { rows } = await db.query<ConfirmedHeldChange>(
    `SELECT ${COLUMNS}, used_at AS "usedAt", resend_requested_at AS "resendRequestedAt"
     FROM held_change WHERE link_id = $1 AND confirmed_at IS NOT NULL AND ($2::text IS NULL OR kind = $2)
     ORDER BY confirmed_at DESC, change_id DESC LIMIT 1`,
    [linkId, kind ?? null],
  );
  return rows[0] ?? null;
}

/**
 * Takes the owner's "Ask the plugin to resend" for a hold: sets `resend_requested_at` unless an earlier
 * request is less than `minIntervalMs` old. The row lock serialises two requests at once, so only one
 * of them is `fresh` (and queues an event). Returns the request that stands.
 */
export async function markResendRequested(
  db: Queryable,
  changeId: string,
  minIntervalMs: number,
): Promise<{ fresh: boolean; requestedAt: Date }> {
  const taken = await db.query<{ requestedAt: Date }>(
    `UPDATE held_change SET resend_requested_at = now()
      WHERE change_id = $1 AND (resend_requested_at IS NULL OR resend_requested_at <= now() - make_interval(secs => $2::double precision / 1000))
      RETURNING resend_requested_at AS "requestedAt"`,
    [changeId, minIntervalMs],
  );
  if (taken.rows[0]) return { fresh: true, requestedAt: taken.rows[0].requestedAt };
  const { rows } = await db.query<{ requestedAt: Date }>(
    'SELECT resend_requested_at AS "requestedAt" FROM held_change WHERE change_id = $1',
    [changeId],
  );
  return { fresh: false, requestedAt: rows[0]!.requestedAt };
}

/**
 * The unspent admin-source hold that keeps the role on `userId` (the link's role is their only
 * Administrator or Manage Server), if any: the member look-up says they are held for safety, and why.
 */
export async function adminHoldOf(db: Queryable, linkId: string, userId: string): Promise<{ changeId: string } | null> {
  const { rows } = await db.query<{ changeId: string }>(
    `SELECT change_id AS "changeId" FROM held_change
      WHERE link_id = $1 AND kind = 'admin_source' AND used_at IS NULL AND ${toStored('$2')} = ANY(removal_sample)
      ORDER BY created_at DESC LIMIT 1`,
    [linkId, userId],
  );
  return rows[0] ?? null;
}
