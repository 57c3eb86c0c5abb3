import { findLinkAt, linkDetails } from '@rolelink/db/links';
import { linkStateFacts } from '@rolelink/db/sync';
import { blockedMessage, deriveLinkStatus, limitsFor, slotAllowance } from '@rolelink/domain';
import type { LinkView } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { memberListingUnavailable } from './member-listing';
import { heldChangeView, pendingHeldChange, removalProgress } from './removals';

/** Defined with the dashboard's contracts, which render it; re-exported for the CLI. */
export type { LinkView };

/**
 * Everything an owner or SRE needs to see about one link: its state, reason and counts as every surface
 * shows them (packages/domain `deriveLinkStatus`, from the facts `linkStateFacts` gathers), limits, the
 * held change and the applied removal.
 */
export async function showLink(deps: AdminDeps, input: { guildId: string; roleId: string }): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const [extra, facts, held, listing] = await Promise.all([
    linkDetails(deps.db.pool, link.id),
    linkStateFacts(deps.db.pool, link, deps.appKey ?? null),
    pendingHeldChange(deps, link.id),
    memberListingUnavailable(deps),
  ]);
  const status = deriveLinkStatus(facts);
  const limits = limitsFor(link.plan);
  // An applied removal is under way while the worker has not caught up with the list, or has removals left.
  const removal = await removalProgress(deps, link.id, {
    removalsOutstanding: link.syncBehind || status.counts.to_remove > 0,
  });
  const blockedReason = facts.botNotInGuild ? 'bot_not_in_guild' : facts.block;
  const blockedSince = facts.botNotInGuild ? facts.outageSince : facts.blockSince;
  return {
    link_id: link.id,
    guild_id: guildId,
    role_id: roleId,
    plugin_url: extra!.plugin_url,
    state: status.state,
    reason: status.reason,
    message: status.message,
    warnings: status.warnings,
    enabled: link.enabled,
    trusted: link.trusted,
    member_mode: link.memberMode,
    plan: link.plan,
    slot: { position: link.rank + 1, allowance: slotAllowance(link.plan, link.paidSlots) },
    counts: status.counts,
    progress: status.progress,
    listing_unavailable: listing,
    limits: { synced_limit: limits.syncedUsers, user_limit: limits.storedUsers, per_put: limits.perPut },
    sync: { rate_per_sec: extra!.sync_rate_per_sec, last_sync_at: extra!.last_sync_at?.toISOString() ?? null },
    // A hold the plugin's newer whole list replaced is no decision anyone has to make: gone from the view.
    held_change: held && !facts.hold?.replaced ? heldChangeView(held) : null,
    removal,
    // The cause itself, when one blocks the link (also while a higher state, disabled or paused, outranks it).
    blocked:
      blockedReason && blockedSince
        ? { reason: blockedReason, message: blockedMessage(blockedReason), since: blockedSince.toISOString() }
        : null,
    created_at: extra!.created_at.toISOString(),
  };
}
