import type { Queryable } from '../client/queryable';

// The admin audit log (admin_audit). Written by @rolelink/admin in the transaction of
// the action it records where there is one, read by the dashboard and `rolelink audit`.

export type AuditEntryInput = {
  guildId: string;
  roleId: string | null;
  actor: { id: string | null; name: string; via: 'dashboard' | 'cli' };
  action: string;
  detail: Record<string, unknown> | null;
};

export type AuditRow = {
  id: string;
  guild_id: string;
  role_id: string | null;
  at: Date;
  actor_id: string | null;
  actor_name: string;
  via: string;
  action: string;
  detail: Record<string, unknown> | null;
};

export async function recordAudit(db: Queryable, e: AuditEntryInput): Promise<void> {
  await db.query(
    'INSERT INTO admin_audit (guild_id, role_id, actor_id, actor_name, via, action, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [
      e.guildId,
      e.roleId,
      e.actor.id,
      e.actor.name.slice(0, 100),
      e.actor.via,
      e.action,
      e.detail === null ? null : JSON.stringify(e.detail),
    ],
  );
}

/**
 * A guild's entries, newest first, one page: ids below `before` (the previous page's last id), filtered by
 * action and/or role. An index range on (guild_id, id DESC) whatever the log's size.
 */
export async function listAudit(
  db: Queryable,
  guildId: string,
  f: { action?: string; roleId?: string; before?: string; limit: number },
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id::text, guild_id::text, role_id::text, at, actor_id::text, actor_name, via, action, detail
       FROM admin_audit
      WHERE guild_id = $1 AND ($2::text IS NULL OR action = $2) AND ($3::bigint IS NULL OR role_id = $3::bigint) AND ($4::bigint IS NULL OR id < $4::bigint)
      ORDER BY admin_audit.id DESC LIMIT $5`,
    [guildId, f.action ?? null, f.roleId ?? null, f.before ?? null, f.limit],
  );
  return rows;
}

/** Deletes entries older than the retention, in bounded batches (the dashboard's audit retention sweep); returns the rows deleted. */
export async function purgeAudit(db: Queryable, retentionDays: number, batch = 10_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const r = await db.query(
      `DELETE FROM admin_audit WHERE id = ANY(ARRAY(SELECT id FROM admin_audit WHERE at < now() - make_interval(days => $1) LIMIT $2))`,
      [retentionDays, batch],
    );
    deleted += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < batch) return deleted;
  }
}
