import type { ResyncView } from '@rolelink/contracts';
import { inTransaction } from '@rolelink/db/client';
import { findLinkAt, forceResync } from '@rolelink/db/links';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/**
 * "Resync now": ends every back-off of the link and asks for a full walk of its list
 * against what the bot applied, so failed members are retried at once and nothing waits for the journal.
 * Changes made by hand on the platform are the reconcile's to find (it reads the platform's members;
 * docs/sync-engine.md): a walk trusts the applied record.
 */
export async function resyncLink(deps: AdminDeps, input: { guildId: string; roleId: string }): Promise<ResyncView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const { retried } = await inTransaction(deps.db.pool, async (c) => {
    const r = await forceResync(c, link.id);
    await audit(deps, c, { guildId, roleId, action: 'resync_requested', detail: { retried: r.retried } });
    return r;
  });
  await deps.requestSync(link.id);
  return { link_id: link.id, retried };
}
