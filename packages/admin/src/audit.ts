import { auditQuery, type AuditAction, type AuditLogView } from '@rolelink/contracts';
import { listAudit, recordAudit } from '@rolelink/db/audit';
import type { Queryable } from '@rolelink/db/client';
import { AppError } from '@rolelink/runtime';
import type { AdminActor, AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/** Who an action is recorded as when the entry point named nobody (a script calling @rolelink/admin directly). */
const UNNAMED: AdminActor = { id: null, name: 'unnamed operator', via: 'cli' };

/** One audit entry for an admin action, written in the caller's transaction where it has one. */
export async function audit(
  deps: AdminDeps,
  db: Queryable,
  e: { guildId: string; roleId: string | null; action: AuditAction; detail?: Record<string, unknown> },
): Promise<void> {
  await recordAudit(db, {
    guildId: e.guildId,
    roleId: e.roleId,
    actor: deps.actor ?? UNNAMED,
    action: e.action,
    detail: e.detail ?? null,
  });
}

/**
 * A configuration saved through the broker (dashboard or `rolelink config set`): the field names only.
 * Values are never recorded: a plugin's form may hold a secret in any field, and only the plugin knows which.
 */
export async function recordConfigSaved(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; config: Record<string, unknown>; status: number },
): Promise<void> {
  await audit(deps, deps.db.pool, {
    guildId: input.guildId,
    roleId: input.roleId,
    action: 'config_saved',
    detail: { fields: Object.keys(input.config).sort(), plugin_status: input.status },
  });
}

/** New notification settings of a guild (which events message the owner, and where): recorded as set. */
export async function recordNotifySettingsChanged(
  deps: AdminDeps,
  input: { guildId: string; settings: { events: readonly string[]; dm_owner: boolean; channel_id: string | null } },
): Promise<void> {
  await audit(deps, deps.db.pool, {
    guildId: input.guildId,
    roleId: null,
    action: 'notify_settings_changed',
    detail: {
      events: [...input.settings.events],
      dm_owner: input.settings.dm_owner,
      channel_id: input.settings.channel_id,
    },
  });
}

/** A guild's audit log, newest first, one page at a time (`next_before` continues it). */
export async function auditLog(
  deps: AdminDeps,
  input: { guildId: string; query?: Record<string, unknown> },
): Promise<AuditLogView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const q = auditQuery.safeParse(input.query ?? {});
  if (!q.success)
    throw AppError.validation(q.error.issues.map((i) => ({ field: i.path.join('.') || 'query', message: i.message })));
  const { action, role_id: roleId, before, limit } = q.data;
  const rows = await listAudit(deps.db.pool, guildId, {
    limit,
    ...(action ? { action } : {}),
    ...(roleId ? { roleId } : {}),
    ...(before ? { before } : {}),
  });
  return {
    entries: rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      role_id: r.role_id,
      actor: { id: r.actor_id, name: r.actor_name, via: r.via as AdminActor['via'] },
      action: r.action as AuditAction,
      detail: r.detail,
    })),
    next_before: rows.length === limit ? rows[rows.length - 1]!.id : null,
  };
}
