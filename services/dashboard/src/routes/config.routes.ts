import { Router } from 'express';
import { readPluginHealth, recordConfigSaved } from '@rolelink/admin';
import { findLinkPlugin } from '@rolelink/db/links';
import { linkParams, submitConfigBody, type SubmittedConfig } from '@rolelink/contracts';
import { AppError, input, validate } from '@rolelink/runtime';
import { actingAdmin, type DashboardContext } from '../context';

const linkOnly = { params: linkParams };
const submitParts = { params: linkParams, body: submitConfigBody };

async function linkOf(
  ctx: DashboardContext,
  guildId: string,
  roleId: string,
): Promise<{ id: string; pluginUrl: string }> {
  const link = await findLinkPlugin(ctx.admin.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  return link;
}

/** The plugin's `message` when it sent one as text (its body is forwarded as is, spec 4.2 rule 5). */
function pluginMessage(body: unknown): string | null {
  const m = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).message : undefined;
  return typeof m === 'string' ? m.slice(0, 500) : null;
}

/**
 * The configuration tab and plugin health (spec 4.2, 4.3, 5.7): every plugin call goes through the
 * broker (the only process that talks to plugins). In iframe mode the viewer's rl_token is minted for
 * the signed-in user on every fetch, so a refetch on tab focus gives a fresh one.
 */
export function configRouter(ctx: DashboardContext): Router {
  const router = Router();
  const base = '/guilds/:guildId/links/:roleId';

  router.get(`${base}/config`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const link = await linkOf(ctx, g.id, params.roleId);
    const view = await ctx.plugins.fetchConfig(link.id, {
      refresh: req.query.refresh === 'true',
      viewerId: req.session.user!.id,
    });
    // Values may hold secrets and the iframe URL a live token: never cached by a browser or proxy.
    res.set('Cache-Control', 'no-store').json(view);
  });

  router.post(`${base}/config`, validate(submitParts), async (req, res) => {
    const { params, body } = input<typeof submitParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    // The broker reads the link (404 `Role link not found` as before) and checks the config against the
    // form: one link read and one check of the config per save on the server side.
    const result = await ctx.plugins.submitConfig({ guildId: g.id, roleId: params.roleId }, body.config);
    // Recorded once the plugin has answered, whatever it answered (a refusal is an attempt worth seeing too).
    await recordConfigSaved(actingAdmin(ctx, req), {
      guildId: g.id,
      roleId: params.roleId,
      config: body.config,
      status: result.status,
    });
    res.json({ ...result, message: pluginMessage(result.body) } satisfies SubmittedConfig);
  });

  router.get(`${base}/health`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const link = await linkOf(ctx, g.id, params.roleId);
    res.json(await readPluginHealth(ctx.admin.db.pool, link.pluginUrl));
  });

  return router;
}
