import type { MemberLookup } from '@rolelink/contracts';
import { findLinkAt, memberHistory } from '@rolelink/db';
import { limitsFor } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { parseSnowflake, parseUserId } from './ids';

/**
 * Is this user on the link's list, synced or held, and what did the platform last answer for them?
 * Synced = among the lowest `synced_limit` IDs (spec 1). The rank count is bounded by the synced limit,
 * so a look-up never walks a 30-million-user list: only lists over their synced limit need it at all.
 */
export async function lookupMember(deps: AdminDeps, input: { guildId: string; roleId: string; userId: string }): Promise<MemberLookup> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const userId = parseUserId(input.userId, 'userId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  const synced = limitsFor(link.plan).syncedUsers;
  const listed = await deps.db.pool.query('SELECT 1 FROM link_user WHERE link_id = $1 AND user_id = $2', [link.id, userId]);
  let state: MemberLookup['state'] = 'not_listed';
  if (listed.rowCount) {
    if (link.userCount <= synced) state = 'synced';
    else {
      const { rows } = await deps.db.pool.query<{ below: string }>(
        'SELECT count(*)::text AS below FROM (SELECT 1 FROM link_user WHERE link_id = $1 AND user_id < $2 LIMIT $3) s',
        [link.id, userId, synced],
      );
      state = Number(rows[0]?.below ?? 0) < synced ? 'synced' : 'held';
    }
  }
  const applied = await deps.db.pool.query<{ outcome: string; updated_at: Date }>(
    'SELECT outcome, updated_at FROM applied_member WHERE link_id = $1 AND user_id = $2',
    [link.id, userId],
  );
  const row = applied.rows[0];
  const history = (await memberHistory(deps.db.pool, link.id, userId)).map((h) => ({ at: h.at.toISOString(), action: h.action, outcome: h.outcome, cause: h.cause }));
  return { user_id: userId, state, platform: row ? { outcome: row.outcome, updated_at: row.updated_at.toISOString() } : null, history };
}
