import type { Request, Response } from 'express';
import type { Pool } from 'pg';
import { CONFIRM_HEADER, type DryRunResult } from '@rolelink/contracts';
import type { LinkContext } from '@rolelink/db/links';
import { previewReplace, replaceList, type ReplaceSource } from '@rolelink/db/list';
import { limitsFor, shrinkMessage, storedLimitMessage } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { SyncNotifier } from '@rolelink/queue';
import { ifMatchVersions, setListVersion, versionMismatch } from './list-version';

type Deps = { pool: Pool; sync: SyncNotifier };

/**
 * The one path for full-list writes (PUT and commit): replace, then map every outcome to the spec's
 * answers — 400 stored limit, 409 shrink hold with its own body shape, 404 upload session — and 412
 * when If-Match names a version the list has left. Sets the new version's ETag.
 */
export async function writeWholeList(
  deps: Deps,
  link: LinkContext,
  source: ReplaceSource,
  req: Request,
  res: Response,
): Promise<number> {
  const outcome = await replaceList(deps.pool, {
    linkId: link.id,
    source,
    storedLimit: limitsFor(link.plan).storedUsers,
    confirm: req.get(CONFIRM_HEADER),
    ifMatch: ifMatchVersions(req.get('if-match'), link.id),
  });
  switch (outcome.kind) {
    case 'replaced':
      await deps.sync.notify(link.id, req.id);
      setListVersion(res, link.id, outcome.listVersion);
      return outcome.userCount;
    case 'version-mismatch':
      throw versionMismatch(res, link.id, outcome.listVersion);
    case 'over-limit':
      throw new AppError(400, storedLimitMessage(link.plan), 'stored_limit');
    case 'upload-not-found':
      throw uploadNotFound();
    case 'link-not-found':
      throw linkNotFound();
    case 'held': {
      const { changeId, previous, next, removals } = outcome.change;
      const message =
        shrinkMessage(previous, next, removals, outcome.against) +
        (outcome.note ? ` (The X-RoleLink-Confirm header was not accepted: ${outcome.note}.)` : '');
      throw AppError.shrinkHold({
        errors: { error: 'confirm_required', code: 'shrink', change_id: changeId, previous, next, removals, message },
        requestId: req.id,
      });
    }
  }
}

/**
 * `?dry_run=true`: what writeWholeList would answer, as a 200 whose `status` and `outcome` say it, with
 * the counts behind it; nothing is written (db previewReplace). A request that could not be attempted at
 * all answers as the real one would: 404 upload, 412 version; body errors were answered before.
 */
export async function previewWholeList(
  deps: Deps,
  link: LinkContext,
  source: ReplaceSource,
  req: Request,
  res: Response,
): Promise<DryRunResult> {
  const preview = await previewReplace(deps.pool, {
    linkId: link.id,
    source,
    confirm: req.get(CONFIRM_HEADER),
    ifMatch: ifMatchVersions(req.get('if-match'), link.id),
  });
  if (preview.kind === 'link-not-found') throw linkNotFound();
  if (preview.kind === 'upload-not-found') throw uploadNotFound();
  if (preview.kind === 'version-mismatch') throw versionMismatch(res, link.id, preview.listVersion);
  setListVersion(res, link.id, preview.listVersion);

  const limits = limitsFor(link.plan);
  const { shrink } = preview;
  const confirmed = shrink.confirmation === 'header' || shrink.confirmation === 'dashboard';
  const wouldHold = shrink.large && !shrink.trusted && !confirmed;
  const overLimit = preview.next > limits.storedUsers;
  const [status, outcome, message]: [DryRunResult['status'], DryRunResult['outcome'], string] = overLimit
    ? [400, 'stored_limit', storedLimitMessage(link.plan)]
    : wouldHold
      ? [
          409,
          'held',
          shrinkMessage(shrink.previous, preview.next, shrink.removals, shrink.against) +
            (typeof shrink.confirmation === 'object'
              ? ` (The X-RoleLink-Confirm header would not be accepted: ${shrink.confirmation.invalid}.)`
              : ''),
        ]
      : [200, 'replaced', `The list would hold ${preview.next.toLocaleString('en-US')} users.`];
  return {
    dry_run: true,
    status,
    outcome,
    message,
    user_count: preview.previous,
    next_user_count: preview.next,
    adds: preview.adds,
    removals: preview.removals,
    synced_limit: limits.syncedUsers,
    held_by_synced_limit: Math.max(0, preview.next - limits.syncedUsers),
    shrink: {
      previous: shrink.previous,
      removals: shrink.removals,
      large_removal: shrink.large,
      trusted: shrink.trusted,
      confirmation: typeof shrink.confirmation === 'object' ? 'invalid' : shrink.confirmation,
      would_hold: wouldHold,
    },
  };
}

const uploadNotFound = () => AppError.notFound('Upload session not found', 'upload_not_found');
const linkNotFound = () => AppError.notFound('Role link not found', 'link_not_found');
