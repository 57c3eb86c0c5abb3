import type { PoolClient } from 'pg';
import type { API } from '@discordjs/core/http-only';
import { finishStrip } from '@rolelink/db/links';
import { grantedHolders, recordMemberChange, recordOutcome } from '@rolelink/db/sync';
import { classifyPlatformError } from '@rolelink/platform-client';
import type { SliceResult } from './slice-result';

const PAGE = 500;
const REASON = 'Role link deleted: role removed from the members it granted';

/**
 * One slice of `link delete --strip-roles`: removes the role from the members this link's own add calls
 * gave it to (outcome `applied` and `granted`; never a holder found at creation or by the reconcile),
 * in user-id order, recording each answer like any removal — so a killed worker or a
 * yield resumes where the applied record says. When nobody is left the purge may go ahead.
 */
export async function stripSlice(
  deps: { client: PoolClient; api: API; exhausted(): boolean; spend(): void },
  link: { id: string; guildId: string; roleId: string },
): Promise<SliceResult> {
  const { client, api } = deps;
  let after = '0';
  for (;;) {
    const users = await grantedHolders(client, link.id, after, PAGE);
    if (!users.length) {
      await finishStrip(client, link.id);
      return { kind: 'done' };
    }
    for (const userId of users) {
      if (deps.exhausted()) return { kind: 'continue' };
      deps.spend();
      try {
        await api.guilds.removeRoleFromMember(link.guildId, userId, link.roleId, { reason: REASON });
        await recordOutcome.removed(client, link.id, userId);
        await recordMemberChange(client, {
          linkId: link.id,
          userId,
          action: 'remove',
          outcome: 'removed',
          cause: 'link deleted',
        });
      } catch (err) {
        const failure = classifyPlatformError(err);
        if (failure.kind === 'rate_limited' || failure.kind === 'limiter_unavailable')
          return { kind: 'yield', delayMs: failure.retryAfterMs, reason: failure.kind };
        if (failure.kind === 'unknown_role') {
          // The role is gone: nobody holds it any more.
          await finishStrip(client, link.id);
          return { kind: 'done' };
        }
        if (failure.kind === 'not_in_guild') {
          await recordOutcome.removed(client, link.id, userId);
          continue;
        }
        // Missing permission, 401, or a failure after REST's retries: try again later, from here.
        return { kind: 'yield', delayMs: 60_000, reason: failure.kind };
      }
    }
    after = users[users.length - 1]!;
  }
}
