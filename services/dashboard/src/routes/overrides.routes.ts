import { Router } from 'express';
import { changeOverrides, getOverrides } from '@rolelink/admin';
import { linkParams, type OverridesView } from '@rolelink/contracts';
import { input, validate } from '@rolelink/runtime';
import { actingAdmin, type DashboardContext } from '../context';

const linkOnly = { params: linkParams };

/**
 * A link's admin overrides ("always keep", "never give"; docs/dashboard.md), on the same @rolelink/admin
 * functions as `rolelink link overrides`. The change body is validated there (one rule for both entry
 * points, user ids by contracts' userIdProblem), and every change lands in the audit log.
 */
export function overridesRouter(ctx: DashboardContext): Router {
  const router = Router();
  const path = '/guilds/:guildId/links/:roleId/overrides';

  router.get(path, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json((await getOverrides(ctx.admin, { guildId: g.id, roleId: params.roleId })) satisfies OverridesView);
  });

  router.patch(path, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(
      (await changeOverrides(actingAdmin(ctx, req), {
        guildId: g.id,
        roleId: params.roleId,
        change: req.body,
      })) satisfies OverridesView,
    );
  });

  return router;
}
