import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { showLink, type LinkView } from './link-show';

/** Enables/disables a link or sets its trusted flag (dashboard owner actions, spec 2.1). */
export async function setLink(deps: AdminDeps, input: { guildId: string; roleId: string; enabled?: boolean; trusted?: boolean }): Promise<LinkView> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  if (input.enabled === undefined && input.trusted === undefined) throw new AppError(400, 'Validation error: nothing to set (use --enabled and/or --trusted)', 'validation');
  const { rows } = await deps.db.pool.query<{ id: string }>(
    `UPDATE role_link SET enabled = COALESCE($3, enabled), trusted = COALESCE($4, trusted), updated_at = now(),
       sync_wanted_seq = sync_wanted_seq + CASE WHEN $3::boolean IS NULL THEN 0 ELSE 1 END
     WHERE guild_id = $1 AND role_id = $2 RETURNING id::text`,
    [guildId, roleId, input.enabled ?? null, input.trusted ?? null],
  );
  const row = rows[0];
  if (!row) throw AppError.notFound('Role link not found', 'link_not_found');
  // Enabling resumes syncing, disabling stops it: either way the bot re-reads the link.
  if (input.enabled !== undefined) await deps.requestSync(row.id);
  return showLink(deps, { guildId, roleId });
}
