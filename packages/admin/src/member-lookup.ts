import type { MemberLookup } from '@rolelink/contracts';
import { findLinkAt } from '@rolelink/db/links';
import { userExpiry } from '@rolelink/db/list';
import { appliedOutcome, listedBelow, memberHistory } from '@rolelink/db/sync';
import { overrideIds } from '@rolelink/db/overrides';
import { limitsFor } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake, parseUserId } from './ids';

/**
 * Is this user on the link's list, synced or held, and what did the platform last answer for them?
 * Synced = among the lowest `synced_limit` IDs (spec 1). The rank count is bounded by the synced limit,
 * so a look-up never walks a 30-million-user list: only lists over their synced limit need it at all.
 */
export async function lookupMember(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; userId: string },
): Promise<MemberLookup> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const userId = parseUserId(input.userId, 'userId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  // The four reads after the link's are independent: together, four connections at most (the CLI's whole
  // pool; a share of the dashboard's). The expiry is read with the row that says whether they are listed:
  // undefined not listed, null permanent.
  const pool = deps.db.pool;
  const [overrides, expiry, row, changes] = await Promise.all([
    overrideIds(pool, link.id),
    userExpiry(pool, link.id, userId),
    appliedOutcome(pool, link.id, userId),
    memberHistory(pool, link.id, userId),
  ]);
  // Admin overrides decide above the list (docs/sync-engine.md, "Admin overrides"): "always" members take
  // their synced places first, and listed ids with an override do not count toward the boundary.
  const withOverrides = overrides.always.length + overrides.never.length > 0;
  const synced = withOverrides
    ? Math.max(0, limitsFor(link.plan).syncedUsers - overrides.always.length)
    : limitsFor(link.plan).syncedUsers;
  const override = overrides.always.includes(userId) ? 'always' : overrides.never.includes(userId) ? 'never' : null;
  let state: MemberLookup['state'] = 'not_listed';
  if (expiry !== undefined) {
    if (link.userCount <= synced) state = 'synced';
    else state = (await listedBelow(pool, link.id, userId, synced, withOverrides)) < synced ? 'synced' : 'held';
  }
  const intended: MemberLookup['reason'] =
    override === 'always' ? 'always_keep' : override === 'never' ? 'never_give' : state;
  // The platform's last answer wins over the intention: a listed user who is not in the server holds
  // nothing, and is never shown as holding the role (issue 34).
  const reason: MemberLookup['reason'] =
    (intended === 'always_keep' || intended === 'synced') && row?.outcome === 'not_in_guild'
      ? 'not_in_server'
      : intended;
  const history = changes.map((h) => ({
    at: h.at.toISOString(),
    action: h.action,
    outcome: h.outcome,
    cause: h.cause,
  }));
  return {
    user_id: userId,
    state,
    override,
    should_hold: intended === 'always_keep' || intended === 'synced',
    reason,
    expires_at: expiry ? expiry.toISOString() : null,
    platform: row ? { outcome: row.outcome, updated_at: row.updated_at.toISOString() } : null,
    history,
  };
}
