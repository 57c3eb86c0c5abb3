import {
  AuditLogEvent,
  PermissionFlagsBits,
  type APIAuditLogEntry,
  type RESTGetAPIAuditLogResult,
} from 'discord-api-types/v10';
import type { RequestHandler } from 'express';
import type { AuditEntry } from '../audit-log';
import type { EmulatorState } from '../emulator-state';
import { guildPermissions } from '../permissions';
import { guildOf, intQuery, snowflake } from './params';
import { missingPermissions } from './platform-errors';

/**
 * GET /guilds/{guild.id}/audit-logs, the subset the emulator records: member role updates
 * (MEMBER_ROLE_UPDATE = 25), the bot's own calls and moderators' hand edits. Query as on the platform:
 * `action_type`, `user_id` (the actor), `before`/`after` (entry ids), `limit` 1–100 (default 50); entries
 * newest first, or oldest first with `after` (docs: resources/audit-log). The caller needs View Audit Log (403 Missing Permissions, 50013, otherwise). Each entry
 * carries one role in `$add` or `$remove`; the platform may group several roles of one edit in one entry,
 * so a reader must take every role of both lists.
 */
export function auditLogsHandler(state: EmulatorState): RequestHandler {
  return (req, res) => {
    const guild = guildOf(state, req);
    const held = guildPermissions(guild, state.botUserId) ?? 0n;
    if ((held & PermissionFlagsBits.ViewAuditLog) === 0n) throw missingPermissions();
    const actionType =
      req.query.action_type === undefined ? undefined : intQuery(req.query.action_type, 'action_type', 1, 1_000, 0);
    const limit = intQuery(req.query.limit, 'limit', 1, 100, 50);
    const before = req.query.before === undefined ? undefined : BigInt(snowflake(req.query.before, 'before'));
    const after = req.query.after === undefined ? undefined : BigInt(snowflake(req.query.after, 'after'));
    const actorId = req.query.user_id === undefined ? undefined : snowflake(req.query.user_id, 'user_id');
    // Only member role updates are recorded: any other action type has no entries.
    const entries =
      actionType === undefined || actionType === Number(AuditLogEvent.MemberRoleUpdate)
        ? state.audit.page({ guildId: guild.id, before, after, actorId, limit })
        : [];
    const userIds = [...new Set(entries.flatMap((e) => [e.actorId, e.userId]))];
    const body = {
      audit_log_entries: entries.map((e) => renderEntry(e, guild.role(e.roleId)?.name ?? '')),
      users: userIds.map((id) => ({
        id,
        username: guild.profile(id)?.username ?? `user_${id}`,
        discriminator: '0',
        global_name: guild.profile(id)?.globalName ?? null,
        avatar: null,
        ...(id === state.botUserId && { bot: true }),
      })),
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

function renderEntry(e: AuditEntry, roleName: string): APIAuditLogEntry {
  const key = e.action === 'member_role_add' ? '$add' : '$remove';
  return {
    id: e.id,
    action_type: AuditLogEvent.MemberRoleUpdate,
    user_id: e.actorId,
    target_id: e.userId,
    changes: [{ key, new_value: [{ id: e.roleId, name: roleName }] }],
    ...(e.reason !== null && { reason: e.reason }),
  };
}
