import type { PlanName } from '@rolelink/contracts';
import { slotAllowance } from '@rolelink/domain';
import { guildLinkRoles, guildPlanRows, linkedGuildIds } from '@rolelink/db/links';
import type { AdminDeps } from './deps';

export type GuildPlanView = { plan: PlanName; slots: { used: number; allowed: number } };

/**
 * Plan and slot use of several guilds in one query (the dashboard's guild list). A guild the service
 * has never seen is on the free plan with no links: it gets a row only when its first link is created.
 */
export async function guildPlans(deps: AdminDeps, guildIds: readonly string[]): Promise<Map<string, GuildPlanView>> {
  const out = new Map<string, GuildPlanView>(
    guildIds.map((id) => [id, { plan: 'free', slots: { used: 0, allowed: slotAllowance('free', 0) } }]),
  );
  if (!guildIds.length) return out;
  for (const r of await guildPlanRows(deps.db.pool, guildIds))
    out.set(r.id, { plan: r.plan, slots: { used: r.links, allowed: slotAllowance(r.plan, r.paid_slots) } });
  return out;
}

/** Role ids of a guild's links, oldest first (slot order: the newest beyond the allowance are paused). */
export async function linkedRoles(deps: AdminDeps, guildId: string): Promise<{ roleId: string; pluginUrl: string }[]> {
  return guildLinkRoles(deps.db.pool, guildId);
}

/** Guilds with at least one link (`rolelink doctor` without a guild). */
export async function linkedGuilds(deps: AdminDeps): Promise<string[]> {
  return linkedGuildIds(deps.db.pool);
}
