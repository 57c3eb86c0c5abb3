import type { LinkView } from '@rolelink/contracts';
import { humanizeEta } from './duration';

/** What a card's progress line says: `tone` colours the bar (`done` is the green one). */
export type SyncStatus = {
  done: number;
  /** Null while a count it needs is unavailable (the listed users not in the server, without the member listing). */
  target: number | null;
  pending: number;
  /** Listed users not in the server; null: unavailable (the link's `listing_unavailable` says why). */
  notInServer: number | null;
  /** Listed users whose account no longer exists. */
  deleted: number;
  percent: number;
  tone: 'progress' | 'done' | 'held';
  text: string;
};

/**
 * The card's sync progress (issue 20). `pending` is every change the bot still has to make, additions
 * and removals (the worker counts both, services/bot-worker/src/sync/progress.ts), so the bar is
 * synced ÷ (synced + pending) and the ETA (pending ÷ rate, from the server) covers removals too. A held
 * removal means the role does not match the plugin's latest list: such a card never says "up to date"
 * and its bar is never the finished green one.
 */
export function syncStatus(link: LinkView): SyncStatus {
  // Listed users no call can reach (issue 34) are out of the bar: those not in the server until they join,
  // deleted accounts for good. They are neither synced nor pending, and the card names them apart. While
  // the not-in-server count is unavailable, so is the target: a smaller number would only look exact.
  const notInServer = link.counts.not_in_server_count;
  const deleted = link.counts.deleted_count;
  const target =
    notInServer === null
      ? null
      : Math.max(0, Math.min(link.counts.user_count, link.limits.synced_limit) - notInServer - deleted);
  const done = target === null ? link.counts.synced_count : Math.min(link.counts.synced_count, target);
  const pending = link.counts.pending_count;
  const total = done + pending;
  const percent = total === 0 ? 100 : Math.floor((done / total) * 1000) / 10;
  const held = link.held_change;
  if (held) {
    // Whether the applied removal still waits for the plugin's list is the server's word (the link's
    // `removal`, issue 34), refreshed with the card: never this browser's clock against the window.
    const waiting = link.removal?.change_id === held.change_id && link.removal.state === 'awaiting_list';
    const text = waiting
      ? 'removal confirmed: waiting for the plugin to resend its list'
      : 'removal held: waiting for the server owner';
    return { done, target, pending, notInServer, deleted, percent, tone: 'held', text };
  }
  const eta = link.sync.eta_seconds;
  const upToDate = pending === 0 && (eta === null ? target === null || done >= target : eta <= 0);
  const text = upToDate ? 'up to date' : eta === null || eta <= 0 ? 'ETA unknown' : `ETA ${humanizeEta(eta)}`;
  return {
    done,
    target,
    pending,
    notInServer,
    deleted,
    percent: upToDate ? 100 : Math.min(percent, 99.9),
    tone: upToDate ? 'done' : 'progress',
    text,
  };
}
