import { inTransaction, journalLinkChange } from '@rolelink/db';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { showLink, type LinkView } from './link-show';

/** Enables/disables a link or sets its trusted flag (dashboard owner actions, spec 2.1). */
export async function setLink(deps: AdminDeps, input: { guildId: string; roleId: string; enabled?: boolean; trusted?: boolean }): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  if (input.enabled === undefined && input.trusted === undefined) throw new AppError(400, 'Validation error: nothing to set (use --enabled and/or --trusted)', 'validation');
  const row = await inTransaction(deps.db.pool, async (c) => {
    const { rows } = await c.query<{ id: string }>(
      `UPDATE role_link SET enabled = COALESCE($3, enabled), trusted = COALESCE($4, trusted), updated_at = now()
       WHERE guild_id = $1 AND role_id = $2 RETURNING id::text`,
      [guildId, roleId, input.enabled ?? null, input.trusted ?? null],
    );
    // Enabling resumes syncing, disabling stops it: marked in the same transaction (outbox + journal).
    if (rows[0] && input.enabled !== undefined) await journalLinkChange(c, rows[0].id, 'link');
    return rows[0];
  });
  if (!row) throw AppError.notFound('Role link not found', 'link_not_found');
  if (input.enabled !== undefined) await deps.requestSync(row.id);
  return showLink(deps, { guildId, roleId });
}
