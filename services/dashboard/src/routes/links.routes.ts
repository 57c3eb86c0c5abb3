import { Router } from 'express';
import {
  applyRemovals,
  createLink,
  deleteLink,
  heldChangePreview,
  lookupMember,
  requestListResend,
  resyncLink,
  setLink,
  stripPreview,
} from '@rolelink/admin';
import {
  applyRemovalsBody,
  createLinkBody,
  deleteLinkBody,
  linkParams,
  updateLinkBody,
  userParams,
  type AppliedRemovals,
  type CreatedLinkView,
  type DeletedLinkView,
  type HeldChangePreview,
  type LinkCard,
  type ResendRequestView,
  type ResyncView,
  type StripPreviewView,
} from '@rolelink/contracts';
import { findLinkAt } from '@rolelink/db/links';
import { streamUserIdsCsv } from '@rolelink/db/list';
import { limitsFor } from '@rolelink/domain';
import { AppError, input, sendStream, validate } from '@rolelink/runtime';
import { actingAdmin, type DashboardContext } from '../context';
import { linkCards } from './guilds.routes';

const linkOnly = { params: linkParams };
const createParts = { params: linkParams.pick({ guildId: true }), body: createLinkBody };
const updateParts = { params: linkParams, body: updateLinkBody };
const memberParts = { params: userParams };
const deleteParts = { params: linkParams, body: deleteLinkBody };
const applyParts = { params: linkParams, body: applyRemovalsBody };

/** Domain refusals of link creation, pointed at the form field they concern. */
function toFieldError(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.code === 'invalid_plugin_url') return AppError.field(400, 'plugin_url', err.message, err.code);
  if (err.code === 'keep_unavailable' || err.code === 'existing_members_required')
    return AppError.field(400, 'existing_members', err.message, err.code);
  if (err.code === 'link_exists') return AppError.field(409, 'role_id', err.message, err.code);
  return err;
}

async function card(ctx: DashboardContext, guildId: string, roleId: string): Promise<LinkCard> {
  const [found] = await linkCards(ctx, guildId, roleId);
  if (!found) throw AppError.notFound('Role link not found', 'link_not_found');
  return found;
}

/** Link lifecycle from the dashboard (spec 1, 3.1, 3.3), on the same @rolelink/admin functions as the CLI. */
export function linksRouter(ctx: DashboardContext): Router {
  const router = Router();
  const base = '/guilds/:guildId/links/:roleId';

  router.post('/guilds/:guildId/links', validate(createParts), async (req, res) => {
    const { params, body } = input<typeof createParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    // The picker's rules are enforced by createLink on a fresh read of the platform (the bot's access, the
    // owner's consent to a privileged role); @everyone is refused here, as the platform has no such rule.
    if (body.role_id === g.id)
      throw AppError.field(400, 'role_id', 'Every member holds @everyone; it cannot be linked', 'role_everyone');
    let created;
    try {
      created = await createLink(actingAdmin(ctx, req), {
        guildId: g.id,
        roleId: body.role_id,
        pluginUrl: body.plugin_url,
        keepMembers: body.existing_members === undefined ? undefined : body.existing_members === 'keep',
        askedMembers: true,
        ownerConsent: body.owner_consent,
        actingIsOwner: g.owner,
      });
    } catch (err) {
      throw toFieldError(err);
    }
    res.status(201).json(created satisfies CreatedLinkView);
  });

  router.get(base, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(await card(ctx, g.id, params.roleId));
  });

  router.patch(base, validate(updateParts), async (req, res) => {
    const { params, body } = input<typeof updateParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    if (body.trusted !== undefined) ctx.access.requireOwner(g, 'mark a link as a trusted integration');
    await setLink(actingAdmin(ctx, req), { guildId: g.id, roleId: params.roleId, ...body });
    res.json(await card(ctx, g.id, params.roleId));
  });

  router.delete(base, validate(deleteParts), async (req, res) => {
    const { params, body } = input<typeof deleteParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const deleted = await deleteLink(actingAdmin(ctx, req), {
      guildId: g.id,
      roleId: params.roleId,
      stripRoles: body.strip_roles,
      confirmLockout: body.confirm_lockout,
      actingUserId: req.session.user!.id,
    });
    res.json(deleted satisfies DeletedLinkView);
  });

  // What "also remove the role" would do, shown in the delete dialog before the admin confirms.
  router.get(`${base}/strip-preview`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(
      (await stripPreview(ctx.admin, {
        guildId: g.id,
        roleId: params.roleId,
        actingUserId: req.session.user!.id,
      })) satisfies StripPreviewView,
    );
  });

  // The link's whole list as CSV (user_id,synced), streamed from PostgreSQL as it is read: 30M rows never
  // sit in memory, and the download starts at once.
  router.get(`${base}/users.csv`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const link = await findLinkAt(ctx.admin.db.pool, g.id, params.roleId);
    if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
    const body = await streamUserIdsCsv(ctx.admin.db.pool, link.id, limitsFor(link.plan).syncedUsers);
    res
      .status(200)
      .type('text/csv')
      .set('Cache-Control', 'no-store')
      .attachment(`rolelink-${g.id}-${params.roleId}.csv`);
    await sendStream(req, res, body);
  });

  router.post(`${base}/resync`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json((await resyncLink(actingAdmin(ctx, req), { guildId: g.id, roleId: params.roleId })) satisfies ResyncView);
  });

  // What Apply removals would confirm, shown in its dialog before the owner confirms.
  router.get(`${base}/held-change`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(
      (await heldChangePreview(ctx.admin, { guildId: g.id, roleId: params.roleId })) satisfies HeldChangePreview,
    );
  });

  router.post(`${base}/apply-removals`, validate(applyParts), async (req, res) => {
    const { params, body } = input<typeof applyParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    ctx.access.requireOwner(g, 'apply held removals');
    res.json(
      (await applyRemovals(actingAdmin(ctx, req), {
        guildId: g.id,
        roleId: params.roleId,
        changeId: body.change_id,
      })) satisfies AppliedRemovals,
    );
  });

  // "Ask the plugin to resend": list.resend_requested for the applied removal whose window is open (owner only,
  // as applying is); a repeat within five minutes answers the standing request and queues nothing.
  router.post(`${base}/request-resend`, validate(linkOnly), async (req, res) => {
    const { params } = input<typeof linkOnly>(res);
    const g = await ctx.access.guild(req, params.guildId);
    ctx.access.requireOwner(g, 'ask the plugin to resend its list');
    res.json(
      (await requestListResend(actingAdmin(ctx, req), {
        guildId: g.id,
        roleId: params.roleId,
      })) satisfies ResendRequestView,
    );
  });

  router.get(`${base}/members/:userId`, validate(memberParts), async (req, res) => {
    const { params } = input<typeof memberParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    res.json(await lookupMember(ctx.admin, { guildId: g.id, roleId: params.roleId, userId: params.userId }));
  });

  return router;
}
