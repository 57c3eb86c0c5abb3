import {
  AuditLogEvent,
  PermissionFlagsBits,
  type APIAuditLogEntry,
  type RESTGetAPIAuditLogResult,
} from 'discord-api-types/v10';
import type { RequestHandler } from 'express';
import type { AuditRecord } from '../audit-log';
import type { GuildState } from '../guild-state';
import type { EmulatorState } from '../emulator-state';
import { guildPermissions } from '../permissions';
import { guildOf, intQuery, snowflake } from './params';
import { invalidFormBody, missingPermissions } from './platform-errors';
import { renderBotUser, renderUser } from './render';

/**
 * GET /guilds/{guild.id}/audit-logs, the subset the emulator records: member role updates
 * (MEMBER_ROLE_UPDATE = 25), the bot's own calls and moderators' hand edits. Query as on the platform:
 * `action_type` (one of the platform's audit log events, else 400 50035), `user_id` (the actor),
 * `target_id` (the member), `before`/`after` (entry ids), `limit` 1–100 (default 50); entries newest
 * first, or oldest first with `after` (docs: resources/audit-log). The caller needs View Audit Log (403
 * Missing Permissions, 50013, otherwise). A single role call is one role in `$add` or `$remove`; an edit
 * of a member's whole list (PATCH, a hand edit) groups every role it added and removed in one entry,
 * `$add` and `$remove` side by side, so a reader must take every role of both lists.
 */
export function auditLogsHandler(state: EmulatorState): RequestHandler {
  return (req, res) => {
    const guild = guildOf(state, req);
    const held = guildPermissions(guild, state.botUserId) ?? 0n;
    if ((held & PermissionFlagsBits.ViewAuditLog) === 0n) throw missingPermissions();
    const actionType = actionTypeQuery(req.query.action_type);
    const limit = intQuery(req.query.limit, 'limit', 1, 100, 50);
    const before = req.query.before === undefined ? undefined : BigInt(snowflake(req.query.before, 'before'));
    const after = req.query.after === undefined ? undefined : BigInt(snowflake(req.query.after, 'after'));
    const actorId = req.query.user_id === undefined ? undefined : snowflake(req.query.user_id, 'user_id');
    const targetId = req.query.target_id === undefined ? undefined : snowflake(req.query.target_id, 'target_id');
    // Only member role updates are recorded: any other action type has no entries.
    const entries =
      actionType === undefined || actionType === Number(AuditLogEvent.MemberRoleUpdate)
        ? state.audit.page({ guildId: guild.id, before, after, actorId, targetId, limit })
        : [];
    const userIds = [...new Set(entries.flatMap((e) => [e.actorId, e.userId]))];
    const body = {
      audit_log_entries: entries.map((e) => renderEntry(e, guild)),
      users: userIds.map((id) => (id === state.botUserId ? renderBotUser(id) : renderUser(id, guild.profile(id)))),
      integrations: [],
      webhooks: [],
      guild_scheduled_events: [],
      threads: [],
      application_commands: [],
      auto_moderation_rules: [],
    } satisfies RESTGetAPIAuditLogResult;
    res.json(body);
  };
}

/** The events the platform's audit log has (AuditLogEvent): any other `action_type` is refused. */
const ACTION_TYPES = new Set(Object.values(AuditLogEvent).filter((v): v is number => typeof v === 'number'));

function actionTypeQuery(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = intQuery(value, 'action_type', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0);
  if (!ACTION_TYPES.has(n))
    throw invalidFormBody('action_type', 'ENUM_TYPE_COERCE', `Value "${n}" is not a valid enum value.`);
  return n;
}

function renderEntry(e: AuditRecord, guild: GuildState): APIAuditLogEntry {
  const roles = (ids: string[]) => ids.map((id) => ({ id, name: guild.role(id)?.name ?? '' }));
  return {
    id: e.id,
    action_type: AuditLogEvent.MemberRoleUpdate,
    user_id: e.actorId,
    target_id: e.userId,
    changes: [
      ...(e.added.length ? [{ key: '$add' as const, new_value: roles(e.added) }] : []),
      ...(e.removed.length ? [{ key: '$remove' as const, new_value: roles(e.removed) }] : []),
    ],
    ...(e.reason !== null && { reason: e.reason }),
  };
}
