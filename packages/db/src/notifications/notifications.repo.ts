import type { Queryable } from '../client/queryable';

// Notifications (notification, guild_notify_settings). Events record a row in their own
// transaction where they have one (the row is the outbox); the bot worker's notify queue delivers pending
// rows on the platform and marks them; the dashboard lists them and marks them read.

export type NotificationRow = {
  id: string;
  guild_id: string;
  role_id: string | null;
  kind: string;
  detail: Record<string, unknown> | null;
  created_at: Date;
  delivery: string;
  delivered_to: string[];
  read_at: Date | null;
};

export type NotifySettingsRow = { events: string[]; dm_owner: boolean; channel_id: string | null };

/**
 * What a guild without a settings row gets (DM on, no channel): every kind but `events_dropped`. A drop
 * is for the plugin's author to fix, not the owner, and a plugin whose /events keeps failing drops an
 * event an hour per link (recordEventsDroppedNote): messaging that by default would be noise. It is
 * still listed in the dashboard, and a guild may turn its messages on.
 */
export const DEFAULT_NOTIFY_EVENTS = ['removal_held', 'plugin_unhealthy', 'plugin_recovered', 'link_paused'];

const COLUMNS = 'id::text, guild_id::text, role_id::text, kind, detail, created_at, delivery, delivered_to, read_at';

/** A held removal (spec 3.3): called by recordHeldChange, in the transaction that records the hold. */
export async function recordRemovalHeldNotification(
  db: Queryable,
  linkId: string,
  detail: { previous: number; next: number; removals: number; kind?: 'admin_source' },
): Promise<void> {
  await db.query(
    `INSERT INTO notification (guild_id, role_id, kind, detail) SELECT guild_id, role_id, 'removal_held', $2 FROM role_link WHERE id = $1`,
    [linkId, JSON.stringify(detail)],
  );
}

/**
 * A plugin's health check outcome, for every link that uses it: `plugin_unhealthy` when it is unhealthy
 * or unreachable and the link's last plugin notification was not already that (or there was none);
 * `plugin_recovered` when it is healthy again after a `plugin_unhealthy`. So a plugin that stays down
 * notifies once, and once more when it comes back; degraded changes nothing. One statement: the checks of
 * one URL are deduplicated by the broker's queue, so two never run at once for the same links.
 */
export async function recordPluginHealthNotifications(
  db: Queryable,
  pluginUrl: string,
  status: string,
): Promise<number> {
  const kind =
    status === 'unhealthy' || status === 'unreachable'
      ? 'plugin_unhealthy'
      : status === 'healthy'
        ? 'plugin_recovered'
        : null;
  if (kind === null) return 0;
  const previous = kind === 'plugin_unhealthy' ? 'plugin_recovered' : 'plugin_unhealthy';
  const r = await db.query(
    `
    INSERT INTO notification (guild_id, role_id, kind, dedupe_key, detail)
    SELECT l.guild_id, l.role_id, $1, 'plugin:' || l.id, jsonb_build_object('plugin_url', l.plugin_url, 'status', $2::text)
      FROM role_link l
     WHERE l.plugin_url = $3
       AND COALESCE((SELECT n.kind FROM notification n WHERE n.dedupe_key = 'plugin:' || l.id ORDER BY n.id DESC LIMIT 1), 'plugin_recovered') = $4`,
    [kind, status, pluginUrl, previous],
  );
  return r.rowCount ?? 0;
}

/** Links a plan change paused (slot allowance): one notification per link, in the plan change's transaction. */
export async function recordLinkPausedNotifications(
  db: Queryable,
  guildId: string,
  roleIds: readonly string[],
  detail: { plan: string; slot_allowance: number },
): Promise<void> {
  if (roleIds.length === 0) return;
  await db.query(
    `INSERT INTO notification (guild_id, role_id, kind, detail) SELECT $1, r, 'link_paused', $3 FROM unnest($2::bigint[]) r`,
    [guildId, roleIds, JSON.stringify({ state: 'paused', reason: 'slot_allowance', ...detail })],
  );
}

/**
 * The bot cannot reach the guild: one `link_paused` notification (state `blocked`, reason
 * `bot_not_in_guild`, the words of packages/domain `deriveLinkStatus`)
 * per enabled link, once per outage (the caller won `markOutageAnnounced`).
 */
export async function recordGuildOutageNotifications(db: Queryable, guildId: string): Promise<void> {
  await db.query(
    `INSERT INTO notification (guild_id, role_id, kind, detail)
     SELECT guild_id, role_id, 'link_paused', jsonb_build_object('state', 'blocked', 'reason', 'bot_not_in_guild') FROM role_link WHERE guild_id = $1 AND enabled ORDER BY id`,
    [guildId],
  );
}

/** The bot may not change the link's role: one `link_paused` notification, state `blocked` and the reason. */
export async function recordLinkBlockedNotification(db: Queryable, linkId: string, problem: string): Promise<void> {
  await db.query(
    `INSERT INTO notification (guild_id, role_id, kind, detail) SELECT guild_id, role_id, 'link_paused', jsonb_build_object('state', 'blocked', 'reason', $2::text) FROM role_link WHERE id = $1`,
    [linkId, problem],
  );
}

/** A guild's notifications, newest first, one page (ids below `before`). */
export async function listNotifications(
  db: Queryable,
  guildId: string,
  f: { before?: string; limit: number },
): Promise<NotificationRow[]> {
  const { rows } = await db.query<NotificationRow>(
    `SELECT ${COLUMNS} FROM notification WHERE guild_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
    [guildId, f.before ?? null, f.limit],
  );
  return rows;
}

export async function countUnreadNotifications(db: Queryable, guildId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM notification WHERE guild_id = $1 AND read_at IS NULL',
    [guildId],
  );
  return rows[0]!.n;
}

/** Marks the guild's notifications read: the given ids (others' ids are ignored), or all with `null`. */
export async function markNotificationsRead(
  db: Queryable,
  guildId: string,
  ids: readonly string[] | null,
): Promise<number> {
  const r = await db.query(
    'UPDATE notification SET read_at = now() WHERE guild_id = $1 AND read_at IS NULL AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))',
    [guildId, ids],
  );
  return r.rowCount ?? 0;
}

export async function getNotifySettings(db: Queryable, guildId: string): Promise<NotifySettingsRow> {
  const { rows } = await db.query<NotifySettingsRow>(
    'SELECT events, dm_owner, channel_id::text FROM guild_notify_settings WHERE guild_id = $1',
    [guildId],
  );
  return rows[0] ?? { events: [...DEFAULT_NOTIFY_EVENTS], dm_owner: true, channel_id: null };
}

export async function putNotifySettings(db: Queryable, guildId: string, s: NotifySettingsRow): Promise<void> {
  await db.query(
    `INSERT INTO guild_notify_settings (guild_id, events, dm_owner, channel_id, updated_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (guild_id) DO UPDATE SET events = $2, dm_owner = $3, channel_id = $4, updated_at = now()`,
    [guildId, s.events, s.dm_owner, s.channel_id],
  );
}

/**
 * Guilds with a pending notification whose kind may send now: none of that kind was sent in the guild
 * within `windowMs`. Kinds still inside their window wait (and fold into one message when it ends).
 */
export async function guildsWithDueNotifications(db: Queryable, windowMs: number, limit = 500): Promise<string[]> {
  const { rows } = await db.query<{ guild_id: string }>(
    `SELECT DISTINCT n.guild_id::text FROM notification n
      WHERE n.delivery = 'pending'
        AND NOT EXISTS (SELECT 1 FROM notification s WHERE s.guild_id = n.guild_id AND s.kind = n.kind AND s.delivery = 'sent'
                          AND s.delivered_at > now() - make_interval(secs => $1::double precision / 1000))
      LIMIT $2`,
    [windowMs, limit],
  );
  return rows.map((r) => r.guild_id);
}

/** Serialises deliveries of one guild (two replicas never send the same rows); call inside a transaction. */
export async function lockGuildNotifications(db: Queryable, guildId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('notify'), hashtext($1))`, [guildId]);
}

/** The pending rows of the guild, per kind, of kinds whose window allows a message now. */
export async function dueNotifications(db: Queryable, guildId: string, windowMs: number): Promise<NotificationRow[]> {
  const { rows } = await db.query<NotificationRow>(
    `SELECT ${COLUMNS} FROM notification n
      WHERE n.guild_id = $1 AND n.delivery = 'pending'
        AND NOT EXISTS (SELECT 1 FROM notification s WHERE s.guild_id = n.guild_id AND s.kind = n.kind AND s.delivery = 'sent'
                          AND s.delivered_at > now() - make_interval(secs => $2::double precision / 1000))
      ORDER BY n.id`,
    [guildId, windowMs],
  );
  return rows;
}

/** Marks rows delivered: `delivery` sent (the row whose message went out), folded, off or failed. */
export async function markNotificationsDelivered(
  db: Queryable,
  ids: readonly string[],
  delivery: 'sent' | 'folded' | 'off' | 'failed',
  to: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    'UPDATE notification SET delivery = $2, delivered_to = $3, delivered_at = now() WHERE id = ANY($1::bigint[])',
    [ids, delivery, to],
  );
}

/**
 * Deletes delivered notifications older than the retention, in bounded batches (the worker's retention sweep);
 * returns the rows deleted. Pending rows stay (the worker has not sent them yet), and so does the latest
 * row of each dedupe key: it is the plugin-health state that keeps a plugin still down from notifying again.
 */
export async function purgeNotifications(db: Queryable, retentionDays: number, batch = 10_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const r = await db.query(
      `DELETE FROM notification WHERE id = ANY(ARRAY(
         SELECT n.id FROM notification n
          WHERE n.created_at < now() - make_interval(days => $1) AND n.delivery <> 'pending'
            AND (n.dedupe_key IS NULL OR n.id <> (SELECT max(l.id) FROM notification l WHERE l.dedupe_key = n.dedupe_key))
          LIMIT $2))`,
      [retentionDays, batch],
    );
    deleted += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < batch) return deleted;
  }
}

/**
 * The health note of a drop: a notification (`events_dropped`) to the link's guild, shown in the
 * dashboard's notifications beside the plugin's health alerts. At most one an hour per link, so a plugin
 * down for a day with a long queue leaves one note per hour, not one per event.
 */
export async function recordEventsDroppedNote(
  db: Queryable,
  linkId: string,
  detail: { event_id: string; kind: string; attempts: number; plugin_url: string },
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO notification (guild_id, role_id, kind, dedupe_key, detail)
     SELECT s.guild_id, s.role_id, 'events_dropped', 'events:' || s.link_id, $2 FROM plugin_event_link s
      WHERE s.link_id = $1
        AND NOT EXISTS (SELECT 1 FROM notification n WHERE n.dedupe_key = 'events:' || s.link_id AND n.created_at > (now() AT TIME ZONE 'UTC') - interval '1 hour')`,
    [linkId, JSON.stringify(detail)],
  );
  return (r.rowCount ?? 0) > 0;
}
