import type { Pool } from 'pg';
import type { ShrinkBody } from '@rolelink/contracts';
import { replaceList, type LinkContext, type ReplaceSource } from '@rolelink/db';
import { limitsFor, shrinkMessage, storedLimitMessage } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { SyncNotifier } from '@rolelink/queue';

/**
 * The one path for full-list writes (PUT and commit): replace, then map every outcome to the spec's
 * answers — 400 stored limit, 409 shrink hold with its own body shape, 404 upload session.
 */
export async function writeWholeList(
  deps: { pool: Pool; sync: SyncNotifier },
  link: LinkContext,
  source: ReplaceSource,
  confirm: string | undefined,
  requestId: string,
): Promise<number> {
  const outcome = await replaceList(deps.pool, { linkId: link.id, source, storedLimit: limitsFor(link.plan).storedUsers, confirm });
  switch (outcome.kind) {
    case 'replaced':
      await deps.sync.notify(link.id);
      return outcome.userCount;
    case 'over-limit':
      throw new AppError(400, storedLimitMessage(link.plan), 'stored_limit');
    case 'upload-not-found':
      throw AppError.notFound('Upload session not found', 'upload_not_found');
    case 'link-not-found':
      throw AppError.notFound('Role link not found', 'link_not_found');
    case 'held': {
      const { changeId, previous, next, removals } = outcome.change;
      const message = shrinkMessage(previous, next, removals) + (outcome.note ? ` (The X-RoleLink-Confirm header was not accepted: ${outcome.note}.)` : '');
      const body: ShrinkBody = {
        errors: { error: 'confirm_required', code: 'shrink', change_id: changeId, previous, next, removals, message },
        requestId,
      };
      throw new AppError(409, message, 'shrink', body);
    }
  }
}
