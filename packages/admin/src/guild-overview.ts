import type { PlanName } from '@rolelink/contracts';
import { slotAllowance } from '@rolelink/domain';
import type { AdminDeps } from './deps';

export type GuildPlanView = { plan: PlanName; slots: { used: number; allowed: number } };

/**
 * Plan and slot use of several guilds in one query (the dashboard's guild list). A guild the service
 * has never seen is on the free plan with no links: it gets a row only when its first link is created.
 */
export async function guildPlans(deps: AdminDeps, guildIds: readonly string[]): Promise<Map<string, GuildPlanView>> {
  const out = new Map<string, GuildPlanView>(guildIds.map((id) => [id, { plan: 'free', slots: { used: 0, allowed: slotAllowance('free', 0) } }]));
  if (!guildIds.length) return out;
  const { rows } = await deps.db.pool.query<{ id: string; plan: PlanName; paid_slots: number; links: number }>(
    `SELECT g.id::text, g.plan, g.paid_slots, (SELECT count(*)::int FROM role_link l WHERE l.guild_id = g.id) AS links
     FROM guild g WHERE g.id = ANY($1::bigint[])`,
    [guildIds],
  );
  for (const r of rows) out.set(r.id, { plan: r.plan, slots: { used: r.links, allowed: slotAllowance(r.plan, r.paid_slots) } });
  return out;
}

/** Role ids of a guild's links, oldest first (slot order: the newest beyond the allowance are paused). */
export async function linkedRoles(deps: AdminDeps, guildId: string): Promise<{ roleId: string; pluginUrl: string }[]> {
  const { rows } = await deps.db.pool.query<{ role_id: string; plugin_url: string }>(
    'SELECT role_id::text, plugin_url FROM role_link WHERE guild_id = $1 ORDER BY created_at, id',
    [guildId],
  );
  return rows.map((r) => ({ roleId: r.role_id, pluginUrl: r.plugin_url }));
}
