import { findLinkAt, linkDetails } from '@rolelink/db/links';
import { findGuildOutage, findLinkBlock, listedUnreachable } from '@rolelink/db/sync';
import {
  BOT_NOT_IN_GUILD_MESSAGE,
  isPaused,
  LINK_BLOCK_MESSAGES,
  limitsFor,
  reportedPending,
  slotAllowance,
  splitPending,
} from '@rolelink/domain';
import type { LinkView } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { memberListingUnavailable } from './member-listing';
import { heldChangeView, pendingHeldChange, removalProgress } from './removals';

/** Defined with the dashboard's contracts, which render it; re-exported for the CLI. */
export type { LinkView };

/** Everything an owner or SRE needs to see about one link: state, counts, limits, progress, held change. */
export async function showLink(deps: AdminDeps, input: { guildId: string; roleId: string }): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const extra = (await linkDetails(deps.db.pool, link.id))!;
  const limits = limitsFor(link.plan);
  const paused = isPaused(link.rank, link.plan, link.paidSlots);
  const held = await pendingHeldChange(deps, link.id);
  const [outage, block, unreachable, listing] = await Promise.all([
    findGuildOutage(deps.db.pool, guildId),
    findLinkBlock(deps.db.pool, link.id),
    listedUnreachable(deps.db.pool, link.id),
    memberListingUnavailable(deps),
  ]);
  const desired = Math.min(link.userCount, limits.syncedUsers);
  const rate = extra.sync_rate_per_sec;
  // Listed users no call can reach (not in the server, deleted accounts) are no change the bot can make:
  // counted apart, so a list that names them still reaches "up to date" (issue 34).
  const unreachableCount = unreachable.notInServer + unreachable.deleted;
  const pending = reportedPending(link, desired, unreachableCount);
  // An applied removal is under way while the worker has not caught up with the list, or has removals left.
  const removal = await removalProgress(deps, link.id, {
    removalsOutstanding:
      link.syncBehind || splitPending(pending, Math.max(0, desired - unreachableCount), link.appliedCount).removals > 0,
  });
  return {
    link_id: link.id,
    guild_id: guildId,
    role_id: roleId,
    plugin_url: extra.plugin_url,
    state: !link.enabled ? 'disabled' : paused ? 'paused' : 'active',
    enabled: link.enabled,
    paused,
    trusted: link.trusted,
    member_mode: link.memberMode,
    awaiting_first_list: link.memberMode === 'handover' && link.firstListAt === null,
    plan: link.plan,
    slot: { position: link.rank + 1, allowance: slotAllowance(link.plan, link.paidSlots) },
    counts: {
      user_count: link.userCount,
      synced_count: Math.min(link.appliedCount, desired),
      pending_count: pending,
      held_count: link.userCount - desired,
      // Who has joined since is known only from the member listing: without it, no number that looks exact.
      not_in_server_count: listing ? null : unreachable.notInServer,
      deleted_count: unreachable.deleted,
    },
    listing_unavailable: listing,
    limits: { synced_limit: limits.syncedUsers, user_limit: limits.storedUsers, per_put: limits.perPut },
    sync: {
      rate_per_sec: rate,
      eta_seconds: rate && rate > 0 && pending > 0 ? Math.ceil(pending / rate) : pending === 0 ? 0 : null,
      last_sync_at: extra.last_sync_at?.toISOString() ?? null,
    },
    held_change: held ? heldChangeView(held) : null,
    removal,
    // The guild first: while the bot is out of it, nothing about the role can be known or changed.
    blocked: outage
      ? { reason: 'bot_not_in_guild', message: BOT_NOT_IN_GUILD_MESSAGE, since: outage.since.toISOString() }
      : block
        ? { reason: block.reason, message: LINK_BLOCK_MESSAGES[block.reason], since: block.since.toISOString() }
        : null,
    created_at: extra.created_at.toISOString(),
  };
}
