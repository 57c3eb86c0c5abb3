import type { PoolClient } from 'pg';
import { isLargeRemoval, type ShrinkBaseline } from '@rolelink/domain';
import { findConfirmation } from './held-changes.repo';
import { handoverHolders, hasRows, measureRemovals } from './list-replace.repo';
import { buildNewList, type ReplaceSource } from './new-list';
import { inRolledBackTransaction, type Queryable } from '../client/queryable';

export type ReplacePreview =
  | { kind: 'link-not-found' }
  | { kind: 'upload-not-found' }
  | { kind: 'version-mismatch'; listVersion: string }
  | {
      kind: 'preview';
      listVersion: string;
      /** Users in the list now, and after the write. */
      previous: number;
      next: number;
      /** Rows the write would insert and delete. */
      adds: number;
      removals: number;
      /** The shrink rule's view (spec 3.3): for a hand-over link's first list, measured against the role's holders. */
      shrink: {
        previous: number;
        removals: number;
        large: boolean;
        trusted: boolean;
        /** What `previous` counts: the list, or a hand-over's first list's role holders. */
        against: ShrinkBaseline;
        confirmation: 'none' | 'header' | 'dashboard' | { invalid: string };
      };
    };

/**
 * What replaceList would do, computed the same way (the same new_list and removal measures), writing
 * nothing: one REPEATABLE READ transaction that is always rolled back, so its temporary table goes with
 * it, no held change is recorded and no confirmation is spent. It takes no lock: a dry run never waits
 * for, nor holds up, the link's writers; its answer is as of its snapshot. Given a client, it runs as a
 * savepoint inside the caller's transaction, rolled back the same way.
 */
export function previewReplace(db: Queryable, input: PreviewInput): Promise<ReplacePreview> {
  return inRolledBackTransaction(db, (c) => preview(c, input), 'REPEATABLE READ');
}

type PreviewInput = { linkId: string; source: ReplaceSource; confirm?: string; ifMatch?: readonly string[] };

async function preview(c: PoolClient, input: PreviewInput): Promise<ReplacePreview> {
  const { rows } = await c.query<{
    userCount: number;
    firstListAt: Date | null;
    trusted: boolean;
    listVersion: string;
  }>(
    `SELECT user_count AS "userCount", first_list_at AS "firstListAt", trusted, list_version::text AS "listVersion" FROM role_link WHERE id = $1`,
    [input.linkId],
  );
  const link = rows[0];
  if (!link) return { kind: 'link-not-found' };
  if (input.ifMatch && !input.ifMatch.includes(link.listVersion))
    return { kind: 'version-mismatch', listVersion: link.listVersion };
  if (input.source.kind === 'upload') {
    const open = await c.query(
      'SELECT 1 FROM upload_session WHERE id = $1 AND link_id = $2 AND closed_at IS NULL AND expires_at > now()',
      [input.source.uploadId, input.linkId],
    );
    if (!open.rowCount) return { kind: 'upload-not-found' };
  }
  const empty = link.userCount === 0 && !(await hasRows(c, input.linkId));
  const baseline = link.firstListAt === null && link.userCount === 0 ? await handoverHolders(c, input.linkId) : 0;
  const next = (await buildNewList(c, input.linkId, input.source)).rows;
  const measured = await measureRemovals(c, input.linkId, empty ? 0 : link.userCount, baseline);
  const kept = (empty ? 0 : link.userCount) - measured.listRemovals;
  const large = isLargeRemoval(measured.previous, next, measured.removals);
  let confirmation: 'none' | 'header' | 'dashboard' | { invalid: string } = 'none';
  if (large && !link.trusted) {
    const found = await findConfirmation(c, input.linkId, input.confirm);
    confirmation = !found ? 'none' : 'invalid' in found ? { invalid: found.invalid } : found.via;
  }
  return {
    kind: 'preview',
    listVersion: link.listVersion,
    previous: link.userCount,
    next,
    adds: next - kept,
    removals: measured.listRemovals,
    shrink: {
      previous: measured.previous,
      removals: measured.removals,
      large,
      trusted: link.trusted,
      against: baseline > 0 ? 'role_holders' : 'list',
      confirmation,
    },
  };
}
