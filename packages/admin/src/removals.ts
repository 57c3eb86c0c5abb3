import { confirmLatestHeldChange, findLinkAt } from '@rolelink/db';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/**
 * The owner's "Apply removals" (spec 3.3): confirms the latest held change, opening a one-hour window in
 * which the plugin's resent list is accepted without a further prompt. The list itself was never
 * stored, so the plugin must resend it.
 */
export async function applyRemovals(deps: AdminDeps, input: { guildId: string; roleId: string }): Promise<{ change_id: string; removals: number; window_ends_at: string }> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const change = await confirmLatestHeldChange(deps.db.pool, link.id);
  if (!change || !change.confirmedAt) throw AppError.notFound('No held change to apply for this role link', 'no_held_change');
  await audit(deps, deps.db.pool, { guildId, roleId, action: 'removals_applied', detail: { change_id: change.changeId, previous: change.previous, next: change.next, removals: change.removals } });
  return { change_id: change.changeId, removals: change.removals, window_ends_at: new Date(change.confirmedAt.getTime() + 60 * 60 * 1000).toISOString() };
}
