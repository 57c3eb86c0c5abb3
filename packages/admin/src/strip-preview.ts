import type { StripPreviewView } from '@rolelink/contracts';
import { findLinkAt } from '@rolelink/db/links';
import { grantedCount, grantedHolders } from '@rolelink/db/sync';
import { lostManagePermission, platformFailureOf } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps, MemberFacts } from './deps';
import { parseSnowflake } from './ids';
import { platformErrorOf } from './platform-answer';

/** How many of the members a strip would take the role from are named in its preview. */
export const STRIP_SAMPLE = 5;

/**
 * What `link delete --strip-roles` would do now: exactly the members this link's own add calls
 * gave the role to, a sample of them by name, and every admin who would lose Administrator or Manage Server
 * with it (the role their only source of it; never the owner, who keeps every permission). The dashboard shows this
 * before the admin confirms; deleteLink checks the lock-out again on the server.
 */
export async function stripPreview(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; actingUserId?: string },
): Promise<StripPreviewView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const [count, sampleIds] = await Promise.all([
    grantedCount(deps.db.pool, link.id),
    grantedHolders(deps.db.pool, link.id, '0', STRIP_SAMPLE),
  ]);
  const facts = deps.members;
  const none = { not_in_server: 0, deleted: 0 };
  if (!facts)
    return {
      count,
      sample: sampleIds.map((id) => ({ user_id: id, name: null })),
      lockout: [],
      lockout_checked: false,
      skipped: none,
    };
  return platformRead(deps, guildId, async () => {
    const gone = new Map<string, Gone>();
    const read = readingMembers(facts, guildId, gone);
    const [sample, lockout] = await Promise.all([
      Promise.all(sampleIds.map(async (id) => ({ id, member: await read(id) }))),
      lockoutOf(deps, read, { linkId: link.id, guildId, roleId, actingUserId: input.actingUserId }),
    ]);
    const skipped = { ...none };
    for (const why of gone.values()) skipped[why]++;
    return {
      count: Math.max(0, count - gone.size),
      sample: sample.flatMap((m) => (m.member ? [{ user_id: m.id, name: m.member.name }] : [])),
      lockout: lockout ?? [],
      lockout_checked: lockout !== null,
      skipped,
    };
  });
}

/**
 * Only the lock-out half of the preview, for deleteLink's server-side check: the count and the named
 * sample are for the admin's eyes and would cost a platform call per name on every delete.
 */
export async function stripLockout(
  deps: AdminDeps,
  l: { linkId: string; guildId: string; roleId: string; actingUserId: string | undefined },
): Promise<Pick<StripPreviewView, 'lockout' | 'lockout_checked'>> {
  const facts = deps.members;
  if (!facts) return { lockout: [], lockout_checked: false };
  const lockout = await platformRead(deps, l.guildId, () =>
    lockoutOf(deps, readingMembers(facts, l.guildId, new Map()), l),
  );
  return { lockout: lockout ?? [], lockout_checked: lockout !== null };
}

/** Why a member the link granted the role to holds it no more: left the server (10007), or deleted their account (10013). */
type Gone = 'not_in_server' | 'deleted';
type MemberRead = (userId: string) => Promise<{ name: string; roles: string[] } | null>;

/**
 * Reads members for the preview: null for one who left (10007) or deleted their account (10013), noted in
 * `gone`: they hold nothing, so they lose nothing and lock nobody out. Any other failure is the preview's.
 */
function readingMembers(facts: MemberFacts, guildId: string, gone: Map<string, Gone>): MemberRead {
  return async (userId) => {
    try {
      const member = await facts.member(guildId, userId);
      if (!member) gone.set(userId, 'not_in_server');
      return member;
    } catch (err) {
      if (platformFailureOf(err).kind !== 'unknown_user') throw err;
      gone.set(userId, 'deleted');
      return null;
    }
  };
}

/**
 * A platform read told as the platform answered (platform-answer.ts): the bot gone from the server says
 * so and names the invite; a 5xx or no answer is a 502 to retry; never a strip without its lock-out check.
 */
async function platformRead<T>(deps: AdminDeps, guildId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw await platformErrorOf(deps, err, 'Who would lose the role cannot be shown', guildId);
  }
}

/**
 * How many of the members a strip takes the role from are asked about one by one (a platform call
 * each) when the role carries Administrator or Manage Server. Such a role's link rarely gives it to more;
 * past this the lock-out counts as not checked, so the strip needs the second confirmation.
 */
export const LOCKOUT_CHECK_LIMIT = 100;

/**
 * Every admin the strip would lock out: each member it takes the role from whose only source of
 * Administrator or Manage Server it is, the acting admin first. Never the guild's owner: the platform
 * gives the owner every permission whatever their roles. Null when there are more members than are checked.
 */
async function lockoutOf(
  deps: AdminDeps,
  read: MemberRead,
  l: { linkId: string; guildId: string; roleId: string; actingUserId: string | undefined },
): Promise<StripPreviewView['lockout'] | null> {
  const facts = deps.members!;
  const [permissions, ownerId] = await Promise.all([facts.rolePermissions(l.guildId), facts.ownerId(l.guildId)]);
  const rolePermissions = permissions.get(l.roleId) ?? 0n;
  if (lostManagePermission(rolePermissions, 0n) === null) return [];
  const stripped = await grantedHolders(deps.db.pool, l.linkId, '0', LOCKOUT_CHECK_LIMIT + 1);
  if (stripped.length > LOCKOUT_CHECK_LIMIT) return null;
  const checked = await Promise.all(
    stripped
      .filter((userId) => userId !== ownerId)
      .map(async (userId) => {
        const member = await read(userId);
        if (!member) return null;
        // What they keep: every other role of theirs, and the @everyone role (whose id is the guild's).
        const others = [l.guildId, ...member.roles.filter((r) => r !== l.roleId)].reduce(
          (all, r) => all | (permissions.get(r) ?? 0n),
          0n,
        );
        const permission = lostManagePermission(rolePermissions, others);
        return permission
          ? {
              user_id: userId,
              name: member.name,
              who: userId === l.actingUserId ? ('you' as const) : ('admin' as const),
              permission,
            }
          : null;
      }),
  );
  const out = checked.filter((p) => p !== null);
  return [...out.filter((p) => p.who === 'you'), ...out.filter((p) => p.who !== 'you')];
}

/** The 409 of a strip that would lock admins out, naming who and what. */
export function lockoutError(preview: Pick<StripPreviewView, 'lockout' | 'lockout_checked'>): AppError {
  const who = preview.lockout.map(
    (p) => `${p.who === 'you' ? 'you' : 'admin'} ${p.name ?? p.user_id} would lose ${p.permission}`,
  );
  const message = preview.lockout_checked
    ? `Removing this role would lock ${preview.lockout.length === 1 ? 'an admin' : `${preview.lockout.length} admins`} out: ${who.join('; ')}. Confirm the lock-out explicitly to go ahead.`
    : `Whether removing this role locks an admin out cannot be checked: no platform is configured, or it would take the role from more than ${LOCKOUT_CHECK_LIMIT} members. Confirm the lock-out explicitly to go ahead.`;
  // Pointed at the confirmation the admin must give; the list itself is GET …/strip-preview's.
  return AppError.field(409, 'confirm_lockout', message, 'strip_lockout');
}
