import type { LinkView } from '@rolelink/contracts';
import { membersListingBlockedSince } from '@rolelink/db/sync';
import { MEMBERS_LISTING_COUNT_MESSAGE } from '@rolelink/domain';
import type { AdminDeps } from './deps';

/**
 * Whether counts that need the guild's member listing can be shown: null when they can; while
 * the bot application lacks the Server Members intent (the reconcile's first 403 50001 marked it), why
 * not, with a message that names the developer portal's setting. The dashboard's banner (with the
 * longer MEMBERS_INTENT_MESSAGE) and every link view (the card, `rolelink link show`) read it here. Without a configured platform (no `appKey`)
 * there is nothing to look up: the counts are shown as measured.
 */
export async function memberListingUnavailable(
  deps: Pick<AdminDeps, 'db' | 'appKey'>,
): Promise<LinkView['listing_unavailable']> {
  if (!deps.appKey) return null;
  const since = await membersListingBlockedSince(deps.db.pool, deps.appKey);
  return since ? { reason: 'members_intent', message: MEMBERS_LISTING_COUNT_MESSAGE } : null;
}
