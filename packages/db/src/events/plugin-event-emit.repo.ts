import type { PluginEventPayloads } from '@rolelink/wire-types';
import { deriveLinkStatus } from '@rolelink/domain';
import { linkStateFacts } from '../sync/link-state-facts.repo';
import { findLinkById } from '../links/links.repo';
import { linkEventKinds, recordEvent } from './plugin-events.repo';
import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

// The emission points' helpers: each records events only for links whose plugin
// asked for the kind, in the caller's transaction. A link that did not opt in costs one primary-key read.

/**
 * Hand-removed users the sync will put back (drift repair, reconcile): `member.role_restored` for each
 * of them still on the link's list (a user the plugin removed meanwhile is not restored). In user-id order.
 */
export async function recordRoleRestoredEvents(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  source: 'drift' | 'reconcile',
): Promise<number> {
  if (userIds.length === 0 || !(await linkEventKinds(db, linkId)).includes('member.role_restored')) return 0;
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT ${fromStored('user_id')} AS user_id FROM link_user WHERE link_id = $1 AND user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i) ORDER BY link_user.user_id`,
    [linkId, userIds],
  );
  for (const r of rows) await recordEvent(db, linkId, 'member.role_restored', { user_id: r.user_id, source });
  return rows.length;
}

/** Links of a guild paused or resumed by a plan change (slot allowance), by role: each with its derived state. */
export async function recordGuildLinkEvents(
  db: Queryable,
  guildId: string,
  roleIds: readonly string[],
  kind: 'link.paused' | 'link.resumed',
  extra: { resolved?: string } = {},
): Promise<void> {
  if (roleIds.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM role_link WHERE guild_id = $1 AND role_id = ANY($2::bigint[]) ORDER BY id',
    [guildId, roleIds],
  );
  for (const r of rows) await recordLinkStateEvent(db, r.id, kind, extra);
}

/**
 * A full walk reached the end of the list: `sync.first_completed` if this was the link's first (its
 * journal position was never set) and none was recorded before. Call it before recordJournalApplied.
 */
export async function recordFirstSyncCompleted(db: Queryable, linkId: string, applied: number): Promise<string | null> {
  if (!(await linkEventKinds(db, linkId)).includes('sync.first_completed')) return null;
  const { rows } = await db.query(
    `SELECT 1 FROM link_sync_state s WHERE s.link_id = $1 AND s.journal_seq IS NULL
        AND NOT EXISTS (SELECT 1 FROM plugin_event e WHERE e.link_id = $1 AND e.kind = 'sync.first_completed')`,
    [linkId],
  );
  return rows.length > 0 ? recordEvent(db, linkId, 'sync.first_completed', { applied }) : null;
}

/**
 * A listed user the platform says is not in the guild: `reason` `not_a_member` (an add answered 10007
 * Unknown Member: retried a day later or when they join) or `account_deleted` (10013 Unknown User: the
 * account is gone, never retried).
 */
export function recordNotInGuildEvent(
  db: Queryable,
  linkId: string,
  userId: string,
  reason: 'not_a_member' | 'account_deleted' = 'not_a_member',
): Promise<string | null> {
  return recordEvent(db, linkId, 'member.not_in_guild', { user_id: userId, reason });
}

/**
 * `link.paused` / `link.resumed` for one link (docs/api.md "Events to plugins"): the payload is the link's
 * state and reason as every other surface shows them (packages/domain `deriveLinkStatus`), read in the
 * caller's transaction after the change that caused the event; `resolved` (on `link.resumed`) names the
 * cause that ended. Returns null when the plugin did not ask for the kind, or the link is gone.
 */
export async function recordLinkStateEvent(
  db: Queryable,
  linkId: string,
  kind: 'link.paused' | 'link.resumed',
  extra: { resolved?: string } = {},
): Promise<string | null> {
  if (!(await linkEventKinds(db, linkId)).includes(kind)) return null;
  const link = await findLinkById(db, linkId);
  if (!link) return null;
  const status = deriveLinkStatus(await linkStateFacts(db, link, null));
  return recordEvent(db, linkId, kind, { state: status.state, reason: status.reason, ...extra });
}

/**
 * Memberships that expire: users whose membership ran out and who left the list, one
 * `member.expired` each, in user-id order. One statement for a whole sweep batch (up to 10k users): the
 * link's sequence is advanced by the batch size and each event takes the next number.
 */
export async function recordMemberExpiredEvents(
  db: Queryable,
  linkId: string,
  userIds: readonly string[],
  expiredAt: Date,
): Promise<number> {
  if (userIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `WITH u AS (SELECT i::text AS id, row_number() OVER (ORDER BY i) AS n FROM unnest($2::numeric[]) i),
          s AS (UPDATE plugin_event_link SET next_seq = next_seq + (SELECT count(*) FROM u)
                 WHERE link_id = $1 AND 'member.expired' = ANY(kinds) AND link_deleted_at IS NULL
                 RETURNING link_id, next_seq - (SELECT count(*) FROM u) AS first)
     INSERT INTO plugin_event (link_id, seq, kind, payload)
     SELECT s.link_id, s.first + u.n - 1, 'member.expired', jsonb_build_object('user_id', u.id, 'expired_at', $3::text) FROM s, u`,
    [linkId, userIds, expiredAt.toISOString()],
  );
  return rowCount ?? 0;
}

/**
 * The owner asks the plugin to resend its list for an applied removal (`list.resend_requested`).
 * Null when the plugin did not ask for the kind (nothing is recorded).
 */
export function recordResendRequestedEvent(
  db: Queryable,
  linkId: string,
  data: PluginEventPayloads['list.resend_requested'],
): Promise<string | null> {
  return recordEvent(db, linkId, 'list.resend_requested', data);
}
