import { Router } from 'express';
import {
  evidenceFromChecks,
  guildPlans,
  linkedRoles,
  memberListingUnavailable,
  readPluginHealth,
  retryClearedCauses,
  showLink,
} from '@rolelink/admin';
import {
  guildParams,
  type DashboardGuild,
  type DashboardSetupCheck,
  type DashboardGuildList,
  type DashboardGuildSummary,
  type GuildHealth,
  type LinkCard,
  type LinkView,
  type RoleChoice,
  type RoleChoices,
} from '@rolelink/contracts';
import { enabledLinksOfGuild } from '@rolelink/db/links';
import { findGuildOutage, releaseGuildProbe } from '@rolelink/db/sync';
import {
  limitsFor,
  MEMBERS_INTENT_MESSAGE,
  privilegedPermissions,
  removalsThatHold,
  roleAccessProblem,
  ROLE_ACCESS_MESSAGES,
  type BotFacts,
} from '@rolelink/domain';
import { input, validate } from '@rolelink/runtime';
import { BOT_RECHECK_MS } from '../auth/access';
import type { UserGuild } from '../auth/oauth-client';
import type { DashboardContext } from '../context';
import type { PlatformRole } from '../platform/guild-reader';

const guildParts = { params: guildParams };
const guildOnly = validate(guildParts);

function iconUrl(g: UserGuild): string | null {
  // The platform's CDN serves guild icons; the emulator has none (icon is null there).
  return g.icon ? `https://cdn.discordapp.com/icons/${g.id}/${g.icon}.png?size=64` : null;
}

const dashboardRole = (r: PlatformRole | undefined) =>
  r ? { id: r.id, name: r.name, color: r.color, position: r.position } : null;

/**
 * Link cards of one guild (or of one of its roles): the link's view, its platform role and its plugin's
 * latest health. While the bot is out of the guild its roles cannot be read: the cards show ids, and
 * why nothing syncs with the invite that fixes it.
 */
export async function linkCards(ctx: DashboardContext, guildId: string, onlyRoleId?: string): Promise<LinkCard[]> {
  const botIn = (await ctx.reader.botGuildIds()).has(guildId);
  const [links, roles] = await Promise.all([
    linkedRoles(ctx.admin, guildId),
    botIn ? ctx.reader.roles(guildId) : Promise.resolve([]),
  ]);
  const byId = new Map(roles.map((r) => [r.id, r]));
  return Promise.all(
    links
      .filter((l) => onlyRoleId === undefined || l.roleId === onlyRoleId)
      .map(async ({ roleId, pluginUrl }) => {
        const [view, health] = await Promise.all([
          showLink(ctx.admin, { guildId, roleId }),
          readPluginHealth(ctx.admin.db.pool, pluginUrl),
        ]);
        const role = byId.get(roleId);
        return {
          ...view,
          blocked: blockedNow(ctx, view.blocked, botIn, guildId),
          role: dashboardRole(role),
          role_readable: botIn,
          health: { status: health.status, checked_at: health.latest?.checked_at ?? null },
          privileged: role ? privilegedPermissions(role.permissions) : [],
        };
      }),
  );
}

/**
 * The worker's record, as the platform stands now: "not in this server" carries the invite; an outage the
 * bot's guild list already contradicts (the bot was just added back) is not shown, its probe is due now.
 */
function blockedNow(
  ctx: DashboardContext,
  blocked: LinkCard['blocked'],
  botIn: boolean,
  guildId: string,
): LinkCard['blocked'] {
  if (blocked?.reason !== 'bot_not_in_guild') return blocked;
  return botIn ? null : { ...blocked, invite_url: ctx.botInvite(guildId) };
}

/**
 * The bot is in a guild the worker still holds an outage for (added back through the invite): the guild's
 * probe is made due and its links asked to sync, so the worker finds the bot back at once and resumes them
 * (one way to end an outage: the worker's probe, docs/sync-engine.md).
 */
async function probeNowIfBack(ctx: DashboardContext, guildId: string, botIn: boolean, outage: boolean): Promise<void> {
  if (!botIn || !outage) return;
  await releaseGuildProbe(ctx.admin.db.pool, guildId);
  for (const linkId of await enabledLinksOfGuild(ctx.admin.db.pool, guildId)) await ctx.admin.requestSync(linkId);
}

/**
 * A role of the picker, with why it cannot be linked: the bot's access by the platform's rules
 * (roleAccessProblem, with its one fix), @everyone, or an existing link.
 */
function roleChoice(
  role: PlatformRole,
  facts: BotFacts,
  linked: Map<string, string>,
  counts: { exact: boolean; counts: Record<string, number> },
  listing: LinkView['listing_unavailable'],
): RoleChoice {
  const found = role.everyone ? null : roleAccessProblem(facts, role.id);
  const problem = found === 'unknown_role' ? null : found;
  const reason = role.everyone
    ? 'Every member holds @everyone; it cannot be linked'
    : problem
      ? ROLE_ACCESS_MESSAGES[problem]
      : linked.has(role.id)
        ? `Already linked to ${linked.get(role.id)}`
        : null;
  const memberCount = role.everyone ? null : (counts.counts[role.id] ?? 0);
  return {
    ...dashboardRole(role)!,
    usable: reason === null,
    reason,
    problem,
    privileged: privilegedPermissions(role.permissions),
    member_count: memberCount,
    member_count_exact: counts.exact && listing === null,
    member_count_unavailable: listing?.message ?? null,
    first_list_holds_at: memberCount === null ? null : removalsThatHold(memberCount),
  };
}

/** Guilds list, guild page, the create-link role picker and the plugin status page. */
export function guildsRouter(ctx: DashboardContext): Router {
  const router = Router();

  const summaries = async (guilds: UserGuild[]): Promise<DashboardGuildSummary[]> => {
    const plans = await guildPlans(
      ctx.admin,
      guilds.map((g) => g.id),
    );
    return guilds.map((g) => ({
      guild_id: g.id,
      name: g.name,
      icon_url: iconUrl(g),
      owner: g.owner,
      ...plans.get(g.id)!,
    }));
  };

  router.get('/guilds', async (req, res) => {
    const guilds = await ctx.access.manageable(req, BOT_RECHECK_MS);
    res.json({
      guilds: await summaries(guilds.sort((a, b) => a.name.localeCompare(b.name))),
    } satisfies DashboardGuildList);
  });

  router.get('/guilds/:guildId', guildOnly, async (req, res) => {
    const { params } = input<typeof guildParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    // While the worker holds an outage for the guild, the bot's guild list is read afresh (at most once a
    // second, shared): the page says whether the bot is there now, not a minute ago.
    const outage = await findGuildOutage(ctx.admin.db.pool, g.id);
    const botIn = (await ctx.reader.botGuildIds(outage ? BOT_RECHECK_MS : undefined)).has(g.id);
    await probeNowIfBack(ctx, g.id, botIn, outage !== null);
    const [[summary], memberCount, links, listing] = await Promise.all([
      summaries([g]),
      botIn ? ctx.reader.memberCount(g.id) : Promise.resolve(null),
      linkCards(ctx, g.id),
      memberListingUnavailable(ctx.admin),
    ]);
    const bot = {
      in_guild: botIn,
      invite_url: ctx.botInvite(g.id),
      members_listing_blocked: listing !== null,
      members_intent_message: listing ? MEMBERS_INTENT_MESSAGE : null,
    };
    res.json({ ...summary!, member_count: memberCount, links, bot } satisfies DashboardGuild);
  });

  router.get('/guilds/:guildId/roles', guildOnly, async (req, res) => {
    const { params } = input<typeof guildParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const [roles, facts, links, counts, plans, listing] = await Promise.all([
      ctx.reader.roles(g.id),
      ctx.reader.botFacts(g.id),
      linkedRoles(ctx.admin, g.id),
      ctx.reader.roleCounts(g.id),
      guildPlans(ctx.admin, [g.id]),
      memberListingUnavailable(ctx.admin),
    ]);
    const linked = new Map(links.map((l) => [l.roleId, l.pluginUrl]));
    const plan = plans.get(g.id)!.plan;
    // The roles were just read: a link blocked by a cause they no longer show is retried now, not after its back-off.
    await retryClearedCauses(ctx.admin, g.id, { botInGuild: true, roleProblem: (id) => roleAccessProblem(facts, id) });
    res.json({
      roles: roles.map((r) => roleChoice(r, facts, linked, counts, listing)),
      synced_limit: limitsFor(plan).syncedUsers,
      plan,
    } satisfies RoleChoices);
  });

  router.get('/guilds/:guildId/health', guildOnly, async (req, res) => {
    const { params } = input<typeof guildParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const [links, roles] = await Promise.all([linkedRoles(ctx.admin, g.id), ctx.reader.roles(g.id)]);
    const byId = new Map(roles.map((r) => [r.id, r]));
    const out: GuildHealth = {
      links: await Promise.all(
        links.map(async (l) => ({
          role_id: l.roleId,
          role: dashboardRole(byId.get(l.roleId)),
          health: await readPluginHealth(ctx.admin.db.pool, l.pluginUrl),
        })),
      ),
    };
    res.json(out);
  });

  // The "Check setup" panel: `rolelink doctor`'s checks for this guild, run when the admin asks (each run
  // calls the platform a handful of times, through the bot's shared rate limits).
  router.get('/guilds/:guildId/setup-check', guildOnly, async (req, res) => {
    const { params } = input<typeof guildParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const roleIds = (await linkedRoles(ctx.admin, g.id)).map((l) => l.roleId);
    const report = await ctx.setupChecker().guild(g.id, roleIds);
    // A cause the checks no longer see is retried at once (the same function `rolelink doctor` calls).
    await retryClearedCauses(ctx.admin, g.id, evidenceFromChecks(report.checks));
    res.json({ ...report, checked_at: new Date().toISOString() } satisfies DashboardSetupCheck);
  });

  return router;
}
