import { inTransaction } from '@rolelink/db/client';
import { updateLinkFlags } from '@rolelink/db/links';
import { journalLinkChange } from '@rolelink/db/list';
import { recordEvent } from '@rolelink/db/events';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { showLink, type LinkView } from './link-show';

/** Enables/disables a link or sets its trusted flag (dashboard owner actions, spec 2.1). */
export async function setLink(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; enabled?: boolean; trusted?: boolean },
): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  if (input.enabled === undefined && input.trusted === undefined)
    throw AppError.validation([{ field: 'enabled', message: 'nothing to set: give enabled and/or trusted' }]);
  const updated = await inTransaction(deps.db.pool, async (c) => {
    const r = await updateLinkFlags(c, guildId, roleId, {
      enabled: input.enabled ?? null,
      trusted: input.trusted ?? null,
    });
    if (!r) return null;
    // Only a flag that changed is journaled, audited and sent to the plugin: a repeated "disable" (a retried
    // request, a script that sets the state it wants) records nothing. Marked in the same transaction.
    if (r.enabledChanged) {
      // Enabling resumes syncing, disabling stops it (outbox + journal).
      await journalLinkChange(c, r.id, 'link');
      await audit(deps, c, { guildId, roleId, action: input.enabled ? 'link_enabled' : 'link_disabled' });
      await recordEvent(c, r.id, input.enabled ? 'link.enabled' : 'link.disabled', {});
    }
    if (r.trustedChanged)
      await audit(deps, c, { guildId, roleId, action: input.trusted ? 'trusted_set' : 'trusted_unset' });
    return r;
  });
  if (!updated) throw AppError.notFound('Role link not found', 'link_not_found');
  if (updated.enabledChanged) await deps.requestSync(updated.id);
  return showLink(deps, { guildId, roleId });
}
