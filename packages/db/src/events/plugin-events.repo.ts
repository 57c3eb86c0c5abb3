import type { Queryable } from '../client/queryable';

// Signed events to plugins (plugin_event_link, plugin_event, plugin_event_attempt).
// recordEvent writes in its caller's transaction where it has one (the row is the outbox); the plugin
// broker delivers pending rows in per-link order. Timestamps are `timestamp(3)` holding UTC (Prisma's
// convention): compared with now() AT TIME ZONE 'UTC', rounded to the columns' milliseconds as every clock
// in packages/db (docs/architecture.md, "The clock in SQL"): an event made due now is due at once.

const NOW = `((now() AT TIME ZONE 'UTC')::timestamp(3))`;

export type EventSubscription = {
  linkId: string;
  guildId: string;
  roleId: string;
  pluginUrl: string;
  tokenCiphertext: Buffer;
  linkDeleted: boolean;
};

export type PendingEvent = {
  id: string;
  seq: string;
  kind: string;
  payload: Record<string, unknown>;
  createdAt: Date;
  attemptCount: number;
  nextAttemptAt: Date;
  retryFrom: Date;
};

export type EventAttemptRow = { at: Date; httpStatus: number | null; error: string | null; latencyMs: number | null };
export type EventLogRow = {
  id: string;
  seq: string;
  kind: string;
  createdAt: Date;
  state: 'pending' | 'delivered' | 'dropped';
  attemptCount: number;
  nextAttemptAt: Date | null;
  attempts: EventAttemptRow[];
};

/**
 * A link's plugin opted in (its /register answer listed `events`): the kinds it wants, replacing earlier
 * ones. An empty list records nothing more (queued events are still delivered). No-op for a missing link.
 */
export async function subscribeLinkEvents(db: Queryable, linkId: string, kinds: readonly string[]): Promise<void> {
  await db.query(
    `INSERT INTO plugin_event_link (link_id, guild_id, role_id, plugin_url, token_ciphertext, kinds)
     SELECT id, guild_id, role_id, plugin_url, token_ciphertext, $2::text[] FROM role_link WHERE id = $1
     ON CONFLICT (link_id) DO UPDATE SET kinds = EXCLUDED.kinds, plugin_url = EXCLUDED.plugin_url, updated_at = ${NOW}`,
    [linkId, kinds],
  );
}

/**
 * A plugin's /health report listed `events`: the kinds for every link it serves. Rows whose kinds are
 * already these are left alone (the poll runs every minute). Returns the links changed.
 */
export async function subscribePluginEvents(
  db: Queryable,
  pluginUrl: string,
  kinds: readonly string[],
): Promise<number> {
  const r = await db.query(
    `INSERT INTO plugin_event_link (link_id, guild_id, role_id, plugin_url, token_ciphertext, kinds)
     SELECT id, guild_id, role_id, plugin_url, token_ciphertext, $2::text[] FROM role_link WHERE plugin_url = $1
     ON CONFLICT (link_id) DO UPDATE SET kinds = EXCLUDED.kinds, updated_at = ${NOW}
       WHERE plugin_event_link.kinds IS DISTINCT FROM EXCLUDED.kinds`,
    [pluginUrl, kinds],
  );
  return r.rowCount ?? 0;
}

/** The kinds a link's plugin asked for ([] when it did not opt in). */
export async function linkEventKinds(db: Queryable, linkId: string): Promise<string[]> {
  const { rows } = await db.query<{ kinds: string[] }>('SELECT kinds FROM plugin_event_link WHERE link_id = $1', [
    linkId,
  ]);
  return rows[0]?.kinds ?? [];
}

/**
 * Records one event for a link, next in its order, if its plugin asked for this kind; otherwise writes
 * nothing at all (a plugin that did not opt in sees today's behaviour). Call it inside the transaction
 * of the change it reports, where there is one. Returns the event id, or null when not recorded.
 */
export async function recordEvent(
  db: Queryable,
  linkId: string,
  kind: string,
  payload: Record<string, unknown>,
): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `WITH s AS (
       UPDATE plugin_event_link SET next_seq = next_seq + 1
        WHERE link_id = $1 AND $2 = ANY(kinds) AND link_deleted_at IS NULL
        RETURNING link_id, next_seq - 1 AS seq)
     INSERT INTO plugin_event (link_id, seq, kind, payload) SELECT link_id, seq, $2, $3 FROM s RETURNING id::text`,
    [linkId, kind, JSON.stringify(payload)],
  );
  return rows[0]?.id ?? null;
}

/**
 * The link was deleted: records `link.deleted` (if wanted) and marks the subscription so nothing more
 * is recorded; the row stays until its queued events are delivered or dropped (pruneEventLinks).
 */
export async function recordLinkDeletedEvent(db: Queryable, linkId: string): Promise<string | null> {
  const id = await recordEvent(db, linkId, 'link.deleted', {});
  await db.query(
    `UPDATE plugin_event_link SET link_deleted_at = ${NOW} WHERE link_id = $1 AND link_deleted_at IS NULL`,
    [linkId],
  );
  return id;
}

/** True while the event waits to be delivered (false once delivered or dropped, or when unknown). */
export async function eventPending(db: Queryable, eventId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM plugin_event WHERE id = $1 AND state = $2', [eventId, 'pending']);
  return rows.length > 0;
}

/** Links with an event due now, the most overdue first (what the broker's sweep asks to deliver). */
export async function linksWithDueEvents(db: Queryable, limit = 1000): Promise<string[]> {
  const { rows } = await db.query<{ link_id: string }>(
    `SELECT link_id::text FROM (SELECT link_id, min(next_attempt_at) AS due FROM plugin_event WHERE state = 'pending' AND next_attempt_at <= ${NOW} GROUP BY link_id) d
      ORDER BY due LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.link_id);
}

/**
 * Takes the link's delivery lease for `leaseMs`. Null when another holds it, or the link has no
 * subscription. One sender per link is the broker's advisory lock (tryLockEventLink), which no stall
 * outlasts; the lease keeps brokers of the release before it, which know only the lease, off the link.
 */
export async function claimEventDelivery(
  db: Queryable,
  linkId: string,
  leaseMs: number,
): Promise<EventSubscription | null> {
  const { rows } = await db.query<EventSubscription>(
    `UPDATE plugin_event_link SET lease_until = ${NOW} + make_interval(secs => $2::double precision / 1000)
      WHERE link_id = $1 AND (lease_until IS NULL OR lease_until < ${NOW})
      RETURNING link_id::text AS "linkId", guild_id::text AS "guildId", role_id::text AS "roleId", plugin_url AS "pluginUrl",
                token_ciphertext AS "tokenCiphertext", link_deleted_at IS NOT NULL AS "linkDeleted"`,
    [linkId, leaseMs],
  );
  return rows[0] ?? null;
}

export async function releaseEventDelivery(db: Queryable, linkId: string): Promise<void> {
  await db.query('UPDATE plugin_event_link SET lease_until = NULL WHERE link_id = $1', [linkId]);
}

/**
 * The link's next event to send: its pending event with the lowest seq (due or not). The ORDER BY names
 * the table's column: a bare `seq` would be the output column `seq::text`, and "10" sorts before "9".
 */
export async function nextPendingEvent(db: Queryable, linkId: string): Promise<PendingEvent | null> {
  const { rows } = await db.query<PendingEvent>(
    `SELECT e.id::text, e.seq::text, e.kind, e.payload, e.created_at AS "createdAt", e.attempt_count AS "attemptCount",
            e.next_attempt_at AS "nextAttemptAt", e.retry_from AS "retryFrom"
       FROM plugin_event e WHERE e.link_id = $1 AND e.state = 'pending' ORDER BY e.seq LIMIT 1`,
    [linkId],
  );
  return rows[0] ?? null;
}

export type AttemptInput = { httpStatus: number | null; error: string | null; latencyMs: number | null };
/** What follows an attempt: delivered, retry at a time, or dropped (past the retry window). */
export type AttemptOutcome = { state: 'delivered' } | { state: 'retry'; at: Date } | { state: 'dropped' };

/**
 * Logs one attempt and moves the event on, in one transaction-free statement pair (the link's delivery
 * lock serialises). Only a pending event moves: an answer that comes after the event was finished
 * (a sender that lost its lock while its request was out) is logged and changes nothing.
 */
export async function recordEventAttempt(
  db: Queryable,
  eventId: string,
  attempt: AttemptInput,
  outcome: AttemptOutcome,
): Promise<void> {
  await db.query(
    `INSERT INTO plugin_event_attempt (event_id, attempted_at, http_status, error, latency_ms) VALUES ($1, ${NOW}, $2, $3, $4)`,
    [eventId, attempt.httpStatus, attempt.error?.slice(0, 300) ?? null, attempt.latencyMs],
  );
  if (outcome.state === 'retry') {
    await db.query(
      `UPDATE plugin_event SET attempt_count = attempt_count + 1, next_attempt_at = $2::timestamptz AT TIME ZONE 'UTC' WHERE id = $1 AND state = 'pending'`,
      [eventId, outcome.at.toISOString()],
    );
  } else {
    await db.query(
      `UPDATE plugin_event SET attempt_count = attempt_count + 1, state = $2, finished_at = ${NOW} WHERE id = $1 AND state = 'pending'`,
      [eventId, outcome.state],
    );
  }
}

/**
 * Puts a delivered or dropped event of the link back in its queue, due now, with a fresh retry window
 * (its attempts stay in the log). It goes ahead of the link's later pending events (it has a lower seq).
 * Its kind and seq (for the audit entry); null for an unknown event, another link's, or one still pending.
 */
export async function resendEvent(
  db: Queryable,
  linkId: string,
  eventId: string,
): Promise<{ kind: string; seq: string } | null> {
  const { rows } = await db.query<{ kind: string; seq: string }>(
    `UPDATE plugin_event SET state = 'pending', next_attempt_at = ${NOW}, retry_from = ${NOW}, finished_at = NULL
      WHERE id = $2 AND link_id = $1 AND state <> 'pending'
      RETURNING kind, seq::text`,
    [linkId, eventId],
  );
  return rows[0] ?? null;
}

/** The link of an event (the CLI's `link events resend <event-id>` names only the event). */
export async function eventLinkId(db: Queryable, eventId: string): Promise<string | null> {
  const { rows } = await db.query<{ link_id: string }>('SELECT link_id::text FROM plugin_event WHERE id = $1', [
    eventId,
  ]);
  return rows[0]?.link_id ?? null;
}

/** The delivery log: the link's newest events (at most `limit`), each with its attempts, oldest attempt first. */
export async function listEventLog(db: Queryable, linkId: string, limit = 50): Promise<EventLogRow[]> {
  const { rows } = await db.query<EventLogRow>(
    `SELECT e.id::text, e.seq::text, e.kind, e.created_at AS "createdAt", e.state, e.attempt_count AS "attemptCount",
            CASE WHEN e.state = 'pending' THEN e.next_attempt_at END AS "nextAttemptAt",
            COALESCE((SELECT json_agg(json_build_object('at', a.attempted_at, 'httpStatus', a.http_status, 'error', a.error, 'latencyMs', a.latency_ms) ORDER BY a.id)
                        FROM plugin_event_attempt a WHERE a.event_id = e.id), '[]') AS attempts
       FROM plugin_event e WHERE e.link_id = $1 ORDER BY e.seq DESC LIMIT $2`,
    [linkId, limit],
  );
  // json_agg renders timestamps as text without a zone: they hold UTC.
  return rows.map((r) => ({
    ...r,
    attempts: (
      r.attempts as unknown as {
        at: string;
        httpStatus: number | null;
        error: string | null;
        latencyMs: number | null;
      }[]
    ).map((a) => ({ ...a, at: new Date(`${a.at}Z`) })),
  }));
}

/**
 * Housekeeping (the broker's sweep): forgets finished events older than `retentionDays`, and the
 * subscriptions of deleted links once nothing of theirs is pending. Returns the events deleted.
 */
export async function pruneEvents(db: Queryable, retentionDays: number, batch = 10_000): Promise<number> {
  const r = await db.query(
    `DELETE FROM plugin_event WHERE id IN (SELECT id FROM plugin_event WHERE state <> 'pending' AND finished_at < ${NOW} - make_interval(days => $1) LIMIT $2)`,
    [retentionDays, batch],
  );
  await db.query(
    `DELETE FROM plugin_event_link s WHERE s.link_deleted_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM plugin_event e WHERE e.link_id = s.link_id AND e.state = 'pending')`,
  );
  return r.rowCount ?? 0;
}
