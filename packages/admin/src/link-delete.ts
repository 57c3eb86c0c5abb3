import type { DeletedLinkView } from '@rolelink/contracts';
import { inTransaction } from '@rolelink/db/client';
import { deleteLinkAt, findLinkAt, recordPurge } from '@rolelink/db/links';
import { recordLinkDeletedEvent } from '@rolelink/db/events';
import { grantedCount } from '@rolelink/db/sync';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { lockoutError, stripLockout } from './strip-preview';

export type DeleteLinkInput = {
  guildId: string;
  roleId: string;
  stripRoles?: boolean;
  /** Who asks (the dashboard's signed-in user): checked, with the owner, for a lock-out by the strip. */
  actingUserId?: string;
  /** The second confirmation a strip needs when it would take Administrator or Manage Server from them. */
  confirmLockout?: boolean;
};

/**
 * Deletes a link (spec 3.1): one row delete invalidates the token at once; its list and applied rows
 * are purged later in batches (link_purge); DELETE {plugin}/config is fire-and-forget through the
 * broker and never blocks deletion. Role assignments already made on the platform are left as they are,
 * unless `stripRoles`: then the bot removes the role from the members this link's own add calls gave it
 * to (never from members who held it before or got it by hand; same rate-limited engine, resumable), and
 * the purge waits for that. A strip that would lock any admin out (or whose lock-out
 * cannot be checked) is refused with 409 `strip_lockout` unless `confirmLockout`.
 */
export async function deleteLink(deps: AdminDeps, input: DeleteLinkInput): Promise<DeletedLinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const strip = input.stripRoles === true;
  if (strip && input.confirmLockout !== true) {
    const link = await findLinkAt(deps.db.pool, guildId, roleId);
    if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
    const check = await stripLockout(deps, { linkId: link.id, guildId, roleId, actingUserId: input.actingUserId });
    if (check.lockout.length || !check.lockout_checked) throw lockoutError(check);
  }
  const removed = await inTransaction(deps.db.pool, async (c) => {
    const row = await deleteLinkAt(c, guildId, roleId);
    if (!row) return null;
    await recordPurge(c, { linkId: row.id, guildId, roleId, stripRoles: strip });
    // The plugin's last event, if it asked for it: delivered after the row is gone, and before
    // DELETE /config, which makes the plugin forget the token the event is signed with (docs/api.md).
    const deletedEvent = await recordLinkDeletedEvent(c, row.id);
    // As of the delete: with the link row gone the worker starts no new grant for it.
    const stripCount = strip ? await grantedCount(c, row.id) : null;
    await audit(deps, c, {
      guildId,
      roleId,
      action: 'link_deleted',
      detail: {
        strip_roles: strip,
        strip_count: stripCount,
        lockout_confirmed: strip && input.confirmLockout === true,
      },
    });
    return { ...row, stripCount, deletedEvent };
  });
  if (!removed) throw AppError.notFound('Role link not found', 'link_not_found');
  if (strip) await deps.requestSync(removed.id);
  await deps.plugin.deleteConfig({
    pluginUrl: removed.plugin_url,
    guildId,
    roleId,
    tokenCiphertext: removed.token_ciphertext,
    afterEvent: removed.deletedEvent,
  });
  return { deleted: true, link_id: removed.id, strip_roles: strip, strip_count: removed.stripCount };
}
