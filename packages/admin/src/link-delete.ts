import { deleteLinkAt, inTransaction, recordPurge } from '@rolelink/db';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/**
 * Deletes a link (spec 3.1): one row delete invalidates the token at once; its list and applied rows
 * are purged later in batches (link_purge); DELETE {plugin}/config is fire-and-forget through the
 * broker and never blocks deletion. Role assignments already made on the platform are left as they are,
 * unless `stripRoles`: then the bot removes the role from every member it granted it to (same
 * rate-limited engine, resumable), and the purge waits for that.
 */
export async function deleteLink(deps: AdminDeps, input: { guildId: string; roleId: string; stripRoles?: boolean }): Promise<{ deleted: true; link_id: string; strip_roles: boolean }> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const removed = await inTransaction(deps.db.pool, async (c) => {
    const row = await deleteLinkAt(c, guildId, roleId);
    if (row) await recordPurge(c, { linkId: row.id, guildId, roleId, stripRoles: input.stripRoles === true });
    return row;
  });
  if (!removed) throw AppError.notFound('Role link not found', 'link_not_found');
  if (input.stripRoles) await deps.requestSync(removed.id);
  await deps.plugin.deleteConfig({ pluginUrl: removed.plugin_url, guildId, roleId, tokenCiphertext: removed.token_ciphertext });
  return { deleted: true, link_id: removed.id, strip_roles: input.stripRoles === true };
}
