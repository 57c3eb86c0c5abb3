import type { Plan } from '@rolelink/domain';
import { isPaused, slotAllowance } from '@rolelink/domain';
import { inTransaction } from '@rolelink/db/client';
import { upsertGuildPlan } from '@rolelink/db/links';
import { journalGuildChange } from '@rolelink/db/list';
import { linkRolesByAge, lockGuildPlan } from '@rolelink/db/links';
import { recordLinkPausedNotifications } from '@rolelink/db/notifications';
import { recordGuildLinkEvents } from '@rolelink/db/events';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake, parseUserId } from './ids';

export type GuildView = {
  guild_id: string;
  owner_id: string | null;
  plan: Plan;
  paid_slots: number;
  slot_allowance: number;
  links: number;
};

/**
 * Sets a guild's plan and paid slots (creating the guild if new). Paused links are derived from plan
 * and creation order, so nothing else changes here; every link of the guild is asked to sync because
 * its synced limit or paused state may have changed (held users activate on upgrade).
 */
export async function setPlan(
  deps: AdminDeps,
  input: { guildId: string; plan: string; slots?: number; ownerId?: string },
): Promise<GuildView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  if (input.plan !== 'free' && input.plan !== 'premium')
    throw AppError.validation([{ field: 'plan', message: 'must be free or premium' }]);
  if (input.slots !== undefined && (!Number.isInteger(input.slots) || input.slots < 0 || input.slots > 1000)) {
    throw AppError.validation([{ field: 'slots', message: 'must be an integer from 0 to 1000' }]);
  }
  const ownerId = input.ownerId === undefined ? undefined : parseUserId(input.ownerId, 'owner');
  const plan: Plan = input.plan;
  const { g, links } = await inTransaction(deps.db.pool, async (c) => {
    const before = await lockGuildPlan(c, guildId);
    const g = await upsertGuildPlan(c, { guildId, ownerId: ownerId ?? null, plan, paidSlots: input.slots ?? null });
    // The owner hears of every link this change pauses, in the same transaction.
    const roles = await linkRolesByAge(c, guildId);
    const paused = roles.filter(
      (_, rank) => isPaused(rank, plan, g.paid_slots) && !(before && isPaused(rank, before.plan, before.paid_slots)),
    );
    await recordLinkPausedNotifications(c, guildId, paused, {
      plan,
      slot_allowance: slotAllowance(plan, g.paid_slots),
    });
    // Plugins that opted in hear of it too (docs/api.md "Events to plugins").
    const resumed = before
      ? roles.filter((_, rank) => isPaused(rank, before.plan, before.paid_slots) && !isPaused(rank, plan, g.paid_slots))
      : [];
    await recordGuildLinkEvents(c, guildId, paused, 'link.paused');
    await recordGuildLinkEvents(c, guildId, resumed, 'link.resumed', { resolved: 'slot_allowance' });
    await audit(deps, c, {
      guildId,
      roleId: null,
      action: 'plan_changed',
      detail: { plan, paid_slots: g.paid_slots, ...(ownerId ? { owner_id: ownerId } : {}) },
    });
    // Same transaction (outbox + journal): a plan change reaches the bot even if Redis is down now. The
    // journal's `link` entry lets the worker walk only the links whose synced boundary really moved.
    return { g, links: await journalGuildChange(c, guildId) };
  });
  for (const id of links) await deps.requestSync(id);
  return {
    guild_id: guildId,
    owner_id: g.owner_id,
    plan,
    paid_slots: g.paid_slots,
    slot_allowance: slotAllowance(plan, g.paid_slots),
    links: links.length,
  };
}
