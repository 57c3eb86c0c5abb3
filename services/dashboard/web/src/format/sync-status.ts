import type { LinkView } from '@rolelink/contracts';
import { humanizeEta } from './duration';

/** What a card's progress line says: `tone` colours the bar (`done` is the green one, `stopped` a still grey). */
export type SyncStatus = {
  /** Members who hold the role now (the counts' `synced`, as on the Synced box). */
  done: number;
  /** Null while a count it needs is unavailable (the listed users not in the server, without the member listing). */
  target: number | null;
  /** Changes still to make, additions and removals. */
  pending: number;
  /** Listed users not in the server; null: unavailable (the link's `listing_unavailable` says why). */
  notInServer: number | null;
  /** Listed users whose account no longer exists. */
  deleted: number;
  percent: number;
  tone: 'progress' | 'done' | 'held' | 'blocked' | 'stopped';
  /** Only a syncing link's bar moves. */
  moving: boolean;
  text: string;
};

/**
 * The card's sync progress, formatted from the server's state and counts (packages/domain
 * `deriveLinkStatus`): the browser derives no state of its own. A blocked, paused or disabled link shows
 * no ETA and a still bar; a held removal is never "up to date" nor the finished green.
 */
export function syncStatus(link: LinkView): SyncStatus {
  const c = link.counts;
  // Listed users no call can reach are out of the target; while the not-in-server count is
  // unavailable, so is the target: a smaller number would only look exact.
  const target =
    c.not_in_server === null
      ? null
      : Math.max(0, Math.min(c.listed, link.limits.synced_limit) - c.not_in_server - c.deleted);
  const base = {
    done: c.synced,
    target,
    pending: c.to_add + c.to_remove,
    notInServer: c.not_in_server,
    deleted: c.deleted,
    percent: link.progress.percent,
    moving: link.progress.moving,
  };
  switch (link.state) {
    case 'up_to_date':
      return { ...base, tone: 'done', text: 'up to date' };
    case 'syncing': {
      const eta = link.progress.eta_seconds;
      return { ...base, tone: 'progress', text: eta === null ? 'ETA unknown' : `ETA ${humanizeEta(eta)}` };
    }
    case 'held': {
      // Whether the applied removal still waits for the plugin's list is the server's word (the link's
      // `removal`), refreshed with the card: never this browser's clock against the window.
      const h = link.held_change;
      const waiting = h !== null && link.removal?.change_id === h.change_id && link.removal.state === 'awaiting_list';
      const text = waiting
        ? 'removal confirmed: waiting for the plugin to resend its list'
        : 'removal held: waiting for the server owner';
      return { ...base, tone: 'held', text };
    }
    case 'blocked':
      return { ...base, tone: 'blocked', text: 'blocked: nothing changes until it is fixed' };
    case 'paused':
      return { ...base, tone: 'stopped', text: 'paused' };
    case 'disabled':
      return { ...base, tone: 'stopped', text: 'disabled' };
    case 'awaiting_first_list':
      return { ...base, tone: 'stopped', text: "waiting for the plugin's first list" };
  }
}
