import { auditLog } from '@rolelink/admin';
import { AUDIT_ACTIONS } from '@rolelink/contracts';
import type { Command } from '../command';

export const auditCommands: Command[] = [
  {
    words: ['audit'],
    args: ['guildId'],
    options: {
      action: { type: 'string', description: `only this action (${AUDIT_ACTIONS.join(', ')})` },
      role: { type: 'string', description: "only this role's link" },
      before: { type: 'string', description: 'the next page: the next_before of the previous one' },
      limit: { type: 'string', description: 'entries per page (1-200, default 50)' },
    },
    summary:
      "A guild's admin audit log, newest first: who created, deleted, configured, enabled or disabled a link, applied removals, set trusted or changed the plan",
    run: (ctx, a, f) =>
      auditLog(ctx.admin(), {
        guildId: a.guildId!,
        query: {
          ...(f.action === undefined ? {} : { action: String(f.action) }),
          ...(f.role === undefined ? {} : { role_id: String(f.role) }),
          ...(f.before === undefined ? {} : { before: String(f.before) }),
          ...(f.limit === undefined ? {} : { limit: String(f.limit) }),
        },
      }),
  },
];
