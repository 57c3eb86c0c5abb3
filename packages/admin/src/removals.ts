import type { AppliedRemovals, HeldChangePreview, LinkView, StripMember } from '@rolelink/contracts';
import { findLinkAt, forceResync } from '@rolelink/db/links';
import { confirmLatestHeldChange, latestHeldChange, type HeldChange } from '@rolelink/db/list';
import { CONFIRM_WINDOW_MS } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { recordEvent } from '@rolelink/db/events';

/** A held change as the dashboard and the CLI show it. */
export function heldChangeView(held: HeldChange): NonNullable<LinkView['held_change']> {
  return {
    change_id: held.changeId,
    kind: held.kind,
    previous: held.previous,
    next: held.next,
    removals: held.removals,
    additions: held.additions,
    created_at: held.createdAt.toISOString(),
    confirmed_at: held.confirmedAt?.toISOString() ?? null,
  };
}

/**
 * The hold the owner has to decide on: the latest unspent one of either kind (a bot's admin-source hold
 * stays shown when a plugin's shrink hold came before it was applied, and the other way round).
 */
export async function pendingHeldChange(deps: Pick<AdminDeps, 'db'>, linkId: string): Promise<(HeldChange & { usedAt: Date | null }) | null> {
  const both = await Promise.all([latestHeldChange(deps.db.pool, linkId, 'shrink'), latestHeldChange(deps.db.pool, linkId, 'admin_source')]);
  const pending = both.filter((h) => h !== null && h.usedAt === null) as (HeldChange & { usedAt: Date | null })[];
  return pending.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0] ?? null;
}

async function linkAt(deps: AdminDeps, input: { guildId: string; roleId: string }) {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  return { guildId, roleId, link };
}

const noHeldChange = () => AppError.notFound('No held change to apply for this role link', 'no_held_change');

/**
 * What Apply removals would confirm (issue 20): the latest held change's numbers and the first members
 * the held list left out (recorded with the hold: the list itself is never stored), by name where the
 * platform can be asked. Who finally loses the role
 * is decided by the list the plugin resends within the hour, which may differ from the held one.
 */
export async function heldChangePreview(deps: AdminDeps, input: { guildId: string; roleId: string }): Promise<HeldChangePreview> {
  const { guildId, link } = await linkAt(deps, input);
  const held = await pendingHeldChange(deps, link.id);
  if (!held) throw noHeldChange();
  const facts = deps.members;
  const named = async (id: string): Promise<StripMember> => {
    if (!facts) return { user_id: id, name: null };
    // A name is a courtesy: a platform that does not answer leaves the id, never the dialog, empty.
    const member = await facts.member(guildId, id).catch(() => null);
    return { user_id: id, name: member?.name ?? null };
  };
  return { change: heldChangeView(held), sample: await Promise.all(held.removalSample.map(named)) };
}

/**
 * The owner's "Apply removals" (spec 3.3): confirms the latest held change, opening a one-hour window in
 * which the plugin's resent list is accepted without a further prompt. The list itself was never
 * stored, so the plugin must resend it. With `changeId` (what the owner's dialog showed), a newer hold
 * held since is refused (409) rather than confirmed unseen.
 */
export async function applyRemovals(deps: AdminDeps, input: { guildId: string; roleId: string; changeId?: string }): Promise<AppliedRemovals> {
  const { guildId, roleId, link } = await linkAt(deps, input);
  const change = await confirmLatestHeldChange(deps.db.pool, link.id, input.changeId);
  if (!change || !change.confirmedAt) {
    const latest = input.changeId === undefined ? null : await latestHeldChange(deps.db.pool, link.id);
    if (latest && latest.usedAt === null && latest.changeId !== input.changeId) {
      throw new AppError(409, 'A newer large removal was held since this one was shown; review it before applying', 'held_change_superseded');
    }
    throw noHeldChange();
  }
  const windowEndsAt = new Date(change.confirmedAt.getTime() + CONFIRM_WINDOW_MS).toISOString();
  await recordEvent(deps.db.pool, link.id, 'removal.applied', { change_id: change.changeId, removals: change.removals, window_ends_at: windowEndsAt });
  await audit(deps, deps.db.pool, {
    guildId,
    roleId,
    action: 'removals_applied',
    detail: { change_id: change.changeId, kind: change.kind, previous: change.previous, next: change.next, removals: change.removals, additions: change.additions },
  });
  if (change.kind === 'admin_source') {
    // The list was written and its change consumed: a walk finds the held members again, and the bot
    // removes them under this confirmation (bot worker's admin-guard.ts).
    await forceResync(deps.db.pool, link.id);
    await deps.requestSync(link.id);
  }
  return { change_id: change.changeId, kind: change.kind, removals: change.removals, window_ends_at: windowEndsAt };
}
