import type { API } from '@discordjs/core/http-only';
import { holdAdminRemoval, latestHeldChange } from '@rolelink/db/list';
import { CONFIRM_WINDOW_MS, lostManagePermission } from '@rolelink/domain';
import { classifyPlatformError } from '@rolelink/platform-client';
import type { RangeContext } from './range-context';
import type { SliceResult } from './slice-result';

/** How long a guild's role permissions and owner are trusted (a role edited meanwhile counts after this). */
const GUILD_FACTS_TTL_MS = 60_000;

/** A guild's role permissions, and its owner: read only for a role that carries either permission. */
type GuildFacts = { permissions: Map<string, bigint>; ownerId(): Promise<string> };
const cache = new WeakMap<API, Map<string, { at: number; facts: Promise<GuildFacts> }>>();

function guildFacts(api: API, guildId: string): Promise<GuildFacts> {
  let byGuild = cache.get(api);
  if (!byGuild) {
    byGuild = new Map<string, { at: number; facts: Promise<GuildFacts> }>();
    cache.set(api, byGuild);
  }
  const hit = byGuild.get(guildId);
  if (hit && Date.now() - hit.at < GUILD_FACTS_TTL_MS) return hit.facts;
  let owner: Promise<string> | null = null;
  const facts = api.guilds.getRoles(guildId).then((roles) => ({
    permissions: new Map(roles.map((r) => [r.id, BigInt(r.permissions)])),
    ownerId: () =>
      (owner ??= api.guilds.get(guildId).then(
        (g) => g.owner_id,
        (err: unknown) => {
          owner = null;
          throw err;
        },
      )),
  }));
  byGuild.set(guildId, { at: Date.now(), facts });
  const entries = byGuild;
  facts.catch(() => entries.delete(guildId));
  return facts;
}

export type GuardVerdict = 'remove' | 'held' | { stop: SliceResult };

/**
 * Before the bot takes the link's role from a member (docs/sync-engine.md "Admin-source holds"):
 * when the role carries Administrator or Manage Server and it is the member's only source of it (their
 * other roles and @everyone give neither), the removal is held like a large removal until the owner
 * applies it. Never for the guild's owner (the platform gives the owner every permission) nor for a
 * member the admins themselves set to "never". Costs nothing for other roles beyond the guild's roles and
 * owner, read once a minute (the owner only for such a role); one member read per removal for a role that carries either permission.
 */
export async function guardRemoval(ctx: RangeContext, userId: string): Promise<GuardVerdict> {
  const { link } = ctx;
  if (link.overrides.never.has(userId)) return 'remove';
  try {
    const facts = await guildFacts(ctx.api, link.guildId);
    const role = facts.permissions.get(link.roleId) ?? 0n;
    if (lostManagePermission(role, 0n) === null || userId === (await facts.ownerId())) return 'remove';
    ctx.spend();
    const member = await ctx.api.guilds.getMember(link.guildId, userId).catch((err: unknown) => {
      if (classifyPlatformError(err).kind === 'not_in_guild') return null;
      throw err;
    });
    if (!member) return 'remove';
    const others = [link.guildId, ...member.roles.filter((r) => r !== link.roleId)].reduce(
      (all, r) => all | (facts.permissions.get(r) ?? 0n),
      0n,
    );
    if (lostManagePermission(role, others) === null) return 'remove';
  } catch (err) {
    // Unknown whether the removal would lock an admin out: never remove on a guess; try again later.
    const failure = classifyPlatformError(err);
    const delayMs =
      failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable' ? failure.retryAfterMs : 5_000;
    return { stop: { kind: 'yield', delayMs, reason: 'admin_guard_unreadable' } };
  }
  // The owner applied a hold naming this member within the hour: the removal goes ahead.
  const latest = await latestHeldChange(ctx.client, link.id, 'admin_source');
  if (
    latest?.confirmedAt &&
    Date.now() - latest.confirmedAt.getTime() <= CONFIRM_WINDOW_MS &&
    latest.removalSample.includes(userId)
  )
    return 'remove';
  await holdAdminRemoval(ctx.client, link.id, userId);
  return 'held';
}
