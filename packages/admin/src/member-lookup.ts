import { MEMBER_OUTCOME_TEXT, type MemberLookup } from '@rolelink/contracts';
import { findLinkAt } from '@rolelink/db/links';
import { adminHoldOf, userExpiry } from '@rolelink/db/list';
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
  const [overrides, expiry, row, changes, safetyHold] = await Promise.all([
    overrideIds(pool, link.id),
    userExpiry(pool, link.id, userId),
    appliedOutcome(pool, link.id, userId),
    memberHistory(pool, link.id, userId),
    adminHoldOf(pool, link.id, userId),
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
    else state = (await listedBelow(pool, link.id, userId, synced, withOverrides)) < synced ? 'synced' : 'over_limit';
  }
  const reason = memberReason({ override, state, outcome: row?.outcome ?? null, heldForSafety: safetyHold !== null });
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
    should_hold: reason === 'always_keep' || reason === 'synced' || reason === 'held_for_safety',
    reason,
    message: MEMBER_REASON_MESSAGES[reason],
    expires_at: expiry ? expiry.toISOString() : null,
    platform: row
      ? {
          outcome: row.outcome,
          text: MEMBER_OUTCOME_TEXT[row.outcome] ?? 'Another answer',
          updated_at: row.updated_at.toISOString(),
        }
      : null,
    history,
  };
}

/**
 * Why the member holds the role or not, the first that applies: an override, then what the platform
 * said of the account (a deleted account or a member who is not in the server holds nothing, whatever the
 * list says: the same facts the link's `deleted` and `not_in_server` counts read), a hold for safety, then
 * the list's own answer.
 */
export function memberReason(f: {
  override: 'always' | 'never' | null;
  state: MemberLookup['state'];
  outcome: string | null;
  heldForSafety: boolean;
}): MemberLookup['reason'] {
  if (f.override === 'never') return 'never_give';
  if (f.outcome === 'unknown_user') return 'account_deleted';
  const gives = f.override === 'always' || f.state === 'synced';
  if (gives && f.outcome === 'not_in_guild') return 'not_in_server';
  if (f.override === 'always') return 'always_keep';
  if (f.heldForSafety) return 'held_for_safety';
  return f.state;
}

export const MEMBER_REASON_MESSAGES: Record<MemberLookup['reason'], string> = {
  always_keep: 'Holds the role: on the "Always keep" override list, whatever the plugin lists.',
  never_give: 'Does not get the role: on the "Never give" override list, even if the plugin lists them.',
  account_deleted:
    'Account deleted: the platform says this account no longer exists, so nobody can give it the role. It is counted under "deleted" on the card.',
  not_in_server:
    'Not in the server: the platform says this user is not a member, so they hold nothing now. The bot gives them the role when they join.',
  held_for_safety:
    "Held for safety: the plugin's list leaves them out, but this role is their only source of Administrator or Manage Server, so the bot keeps it on them until the server owner applies the removal (Apply removals).",
  synced: "Holds the role: on the plugin's list, within the synced limit.",
  over_limit:
    "Does not get the role: on the plugin's list, beyond the plan's synced limit (stored, synced after an upgrade).",
  not_listed: "Does not get the role: not on the plugin's list.",
};
