import { Router } from 'express';
import { linkEventLog, resendLinkEvent, type EventLogPage } from '@rolelink/admin';
import { linkParams } from '@rolelink/contracts';
import { input, validate } from '@rolelink/runtime';
import { actingAdmin, type DashboardContext } from '../context';

const linkOnly = { params: linkParams };

/**
 * A link's delivery log of signed events to its plugin (docs/dashboard.md, "Event deliveries"), on the
 * same @rolelink/admin functions as `rolelink link events`. The event id is checked there (400 for a
 * malformed one, 404 for another link's, 409 while it is still pending); a resend lands in the audit log.
 */
export function eventsRouter(ctx: DashboardContext): Router {
  const router = Router();
  const path = '/guilds/:guildId/links/:roleId/events';

  router.get(path, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json((await linkEventLog(ctx.admin, { guildId: g.id, roleId: params.roleId })) satisfies EventLogPage);
  });

  router.post(`${path}/:eventId/resend`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(
      await resendLinkEvent(actingAdmin(ctx, req), {
        guildId: g.id,
        roleId: params.roleId,
        eventId: String(req.params.eventId),
      }),
    );
  });

  return router;
}
