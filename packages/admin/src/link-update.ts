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
export async function setLink(deps: AdminDeps, input: { guildId: string; roleId: string; enabled?: boolean; trusted?: boolean }): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  if (input.enabled === undefined && input.trusted === undefined) throw AppError.validation([{ field: 'enabled', message: 'nothing to set: give enabled and/or trusted' }]);
  const id = await inTransaction(deps.db.pool, async (c) => {
    const id = await updateLinkFlags(c, guildId, roleId, { enabled: input.enabled ?? null, trusted: input.trusted ?? null });
    // Enabling resumes syncing, disabling stops it: marked in the same transaction (outbox + journal).
    if (id && input.enabled !== undefined) await journalLinkChange(c, id, 'link');
    if (id && input.enabled !== undefined) await audit(deps, c, { guildId, roleId, action: input.enabled ? 'link_enabled' : 'link_disabled' });
    if (id && input.enabled !== undefined) await recordEvent(c, id, input.enabled ? 'link.enabled' : 'link.disabled', {});
    if (id && input.trusted !== undefined) await audit(deps, c, { guildId, roleId, action: input.trusted ? 'trusted_set' : 'trusted_unset' });
    return id;
  });
  if (!id) throw AppError.notFound('Role link not found', 'link_not_found');
  if (input.enabled !== undefined) await deps.requestSync(id);
  return showLink(deps, { guildId, roleId });
}
