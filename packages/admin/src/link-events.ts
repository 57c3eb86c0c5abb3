import type { LinkEventLog } from '@rolelink/contracts';
import { eventLinkId, linkEventKinds, listEventLog, resendEvent } from '@rolelink/db/events';
import { inTransaction } from '@rolelink/db/client';
import { findLinkAt, findPluginLink } from '@rolelink/db/links';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

export type EventLogPage = LinkEventLog;

const EVENT_ID = /^(?:evt_)?(\d{1,19})$/;

/** The delivery log of a link (dashboard, `rolelink link events`): its newest events with every attempt. */
export async function linkEventLog(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; limit?: number },
): Promise<EventLogPage> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const rows = await listEventLog(deps.db.pool, link.id, input.limit ?? 50);
  return {
    link_id: link.id,
    kinds: await linkEventKinds(deps.db.pool, link.id),
    events: rows.map((e) => ({
      id: `evt_${e.id}`,
      seq: Number(e.seq),
      kind: e.kind,
      created_at: e.createdAt.toISOString(),
      state: e.state,
      attempt_count: e.attemptCount,
      next_attempt_at: e.nextAttemptAt?.toISOString() ?? null,
      attempts: e.attempts.map((a) => ({
        at: a.at.toISOString(),
        http_status: a.httpStatus,
        error: a.error,
        latency_ms: a.latencyMs,
      })),
    })),
  };
}

/**
 * Puts a delivered or dropped event back in its link's queue, due now with a fresh 24 h window (the
 * broker's sweep sends it within seconds, ahead of the link's later events). With a link, the event
 * must be that link's (the dashboard); without, any event (the operator's CLI). Recorded in the admin
 * audit log (`event_resent`) in the same transaction.
 */
export async function resendLinkEvent(
  deps: AdminDeps,
  input: { eventId: string; guildId?: string; roleId?: string },
): Promise<{ id: string; state: 'pending' }> {
  const m = EVENT_ID.exec(input.eventId);
  if (!m) throw AppError.validation([{ field: 'eventId', message: 'must be an event id such as evt_123' }]);
  const eventId = m[1]!;
  let link: { id: string; guildId: string; roleId: string } | null;
  if (input.guildId !== undefined && input.roleId !== undefined) {
    link = await findLinkAt(
      deps.db.pool,
      parseSnowflake(input.guildId, 'guildId'),
      parseSnowflake(input.roleId, 'roleId'),
    );
    if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  } else {
    const linkId = await eventLinkId(deps.db.pool, eventId);
    link = linkId === null ? null : await findPluginLink(deps.db.pool, linkId);
  }
  const target = link;
  const resent =
    target &&
    (await inTransaction(deps.db.pool, async (c) => {
      const r = await resendEvent(c, target.id, eventId);
      if (r)
        await audit(deps, c, {
          guildId: target.guildId,
          roleId: target.roleId,
          action: 'event_resent',
          detail: { event_id: `evt_${eventId}`, kind: r.kind, seq: Number(r.seq) },
        });
      return r;
    }));
  if (!resent) {
    const owner = await eventLinkId(deps.db.pool, eventId);
    if (owner !== null && owner === target?.id)
      throw new AppError(409, 'Event is still pending delivery', 'event_pending');
    throw AppError.notFound('Event not found', 'event_not_found');
  }
  return { id: `evt_${eventId}`, state: 'pending' };
}
