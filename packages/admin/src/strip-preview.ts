import type { StripMember, StripPreviewView } from '@rolelink/contracts';
import { findLinkAt } from '@rolelink/db/links';
import { grantedAmong, grantedCount, grantedHolders } from '@rolelink/db/sync';
import { lostManagePermission } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps, MemberFacts } from './deps';
import { parseSnowflake } from './ids';

/** How many of the members a strip would take the role from are named in its preview. */
export const STRIP_SAMPLE = 5;

/**
 * What `link delete --strip-roles` would do now (issue 20): exactly the members this link's own add calls
 * gave the role to, a sample of them by name, and whether the acting admin or the owner would lose
 * Administrator or Manage Server with it (the role their only source of it). The dashboard shows this
 * before the admin confirms; deleteLink checks the lock-out again on the server.
 */
export async function stripPreview(deps: AdminDeps, input: { guildId: string; roleId: string; actingUserId?: string }): Promise<StripPreviewView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const [count, sampleIds] = await Promise.all([grantedCount(deps.db.pool, link.id), grantedHolders(deps.db.pool, link.id, '0', STRIP_SAMPLE)]);
  const facts = deps.members;
  if (!facts) return { count, sample: sampleIds.map((id) => ({ user_id: id, name: null })), lockout: [], lockout_checked: false };
  return platformRead(async () => {
    const [sample, lockout] = await Promise.all([
      Promise.all(sampleIds.map(async (id): Promise<StripMember> => ({ user_id: id, name: (await facts.member(guildId, id))?.name ?? null }))),
      lockoutOf(deps, facts, { linkId: link.id, guildId, roleId, actingUserId: input.actingUserId }),
    ]);
    return { count, sample, lockout, lockout_checked: true };
  });
}

/**
 * Only the lock-out half of the preview, for deleteLink's server-side check: the count and the named
 * sample are for the admin's eyes and would cost a platform call per name on every delete.
 */
export async function stripLockout(deps: AdminDeps, l: { linkId: string; guildId: string; roleId: string; actingUserId: string | undefined }): Promise<Pick<StripPreviewView, 'lockout' | 'lockout_checked'>> {
  const facts = deps.members;
  if (!facts) return { lockout: [], lockout_checked: false };
  return { lockout: await platformRead(() => lockoutOf(deps, facts, l)), lockout_checked: true };
}

/** A platform that does not answer is a 502 to retry, never a strip without its lock-out check. */
async function platformRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(502, 'The chat platform did not answer, so who would lose the role cannot be shown; try again in a moment', 'platform_unavailable');
  }
}

/** The acting admin and the owner, where the strip takes the role from them and with it their only Administrator or Manage Server. */
async function lockoutOf(deps: AdminDeps, facts: MemberFacts, l: { linkId: string; guildId: string; roleId: string; actingUserId: string | undefined }): Promise<StripPreviewView['lockout']> {
  const [permissions, ownerId] = await Promise.all([facts.rolePermissions(l.guildId), facts.ownerId(l.guildId)]);
  const rolePermissions = permissions.get(l.roleId) ?? 0n;
  if (lostManagePermission(rolePermissions, 0n) === null) return [];
  const people = [...new Set([l.actingUserId, ownerId].filter((id): id is string => id !== undefined))];
  const stripped = await grantedAmong(deps.db.pool, l.linkId, people);
  const out: StripPreviewView['lockout'] = [];
  for (const userId of stripped) {
    const member = await facts.member(l.guildId, userId);
    if (!member) continue;
    // What they keep: every other role of theirs, and the @everyone role (whose id is the guild's).
    const others = [l.guildId, ...member.roles.filter((r) => r !== l.roleId)].reduce((all, r) => all | (permissions.get(r) ?? 0n), 0n);
    const permission = lostManagePermission(rolePermissions, others);
    if (!permission) continue;
    const you = userId === l.actingUserId;
    const owner = userId === ownerId;
    out.push({ user_id: userId, name: member.name, who: you && owner ? 'you_owner' : you ? 'you' : 'owner', permission });
  }
  return out;
}

/** The 409 of a strip that would lock the acting admin or the owner out, naming who and what. */
export function lockoutError(preview: Pick<StripPreviewView, 'lockout' | 'lockout_checked'>): AppError {
  const who = preview.lockout.map((p) => `${p.who === 'owner' ? 'the owner' : 'you'} (${p.name ?? p.user_id}) would lose ${p.permission}`);
  const message = preview.lockout_checked
    ? `Removing this role would lock an admin out: ${who.join('; ')}. Confirm the lock-out explicitly to go ahead.`
    : 'Whether removing this role locks an admin out cannot be checked: no platform is configured. Confirm the lock-out explicitly to go ahead.';
  // Pointed at the confirmation the admin must give; the list itself is GET …/strip-preview's.
  return AppError.field(409, 'confirm_lockout', message, 'strip_lockout');
}
