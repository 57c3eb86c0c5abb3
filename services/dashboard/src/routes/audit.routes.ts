import { Router } from 'express';
import { auditLog } from '@rolelink/admin';
import { guildParams, type DashboardAuditLog } from '@rolelink/contracts';
import { input, validate } from '@rolelink/runtime';
import type { DashboardContext } from '../context';

const guildParts = { params: guildParams };

/**
 * The guild's admin audit log: readable by whoever may manage the guild (the same check
 * as every guild route, so admins of other guilds get 403). Filters and paging are query parameters,
 * validated by auditQuery in @rolelink/admin (the CLI's `rolelink audit` takes the same).
 */
export function auditRouter(ctx: DashboardContext): Router {
  const router = Router();
  router.get('/guilds/:guildId/audit', validate(guildParts), async (req, res) => {
    const { params } = input<typeof guildParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const [log, roles] = await Promise.all([
      auditLog(ctx.admin, { guildId: g.id, query: req.query }),
      ctx.reader.roles(g.id),
    ]);
    // Names as the platform has them now (a deleted link's role still has one; a role deleted there has none).
    const byId = new Map(roles.map((r) => [r.id, { id: r.id, name: r.name, color: r.color, position: r.position }]));
    const body: DashboardAuditLog = {
      ...log,
      entries: log.entries.map((e) => ({ ...e, role: e.role_id ? (byId.get(e.role_id) ?? null) : null })),
    };
    res.set('Cache-Control', 'no-store').json(body);
  });
  return router;
}
