import type { LinkView } from '@rolelink/contracts';
import { syncStatus } from '../format/sync-status';
import styles from './SyncProgress.module.css';

const TONE_CLASS: Record<ReturnType<typeof syncStatus>['tone'], string> = {
  progress: styles.moving ?? '',
  done: styles.done ?? '',
  held: styles.barHeld ?? '',
  blocked: styles.barBlocked ?? '',
  stopped: styles.barStopped ?? '',
};

/** Members holding the role against what can be synced, and every change (additions and removals) still to make. */
export function SyncProgress({ link }: { link: LinkView }) {
  const s = syncStatus(link);
  const fmt = (n: number) => n.toLocaleString();
  return (
    <div className={styles.sync}>
      <div className={styles.label}>
        <span>
          Synced {fmt(s.done)}
          {s.target === null ? '' : ` of ${fmt(s.target)}`}
          {s.pending > 0
            ? ` · ${fmt(s.pending)} ${s.pending === 1 ? 'change' : 'changes'} to make (additions and removals)`
            : ''}
        </span>
        <span className={s.tone === 'held' || s.tone === 'blocked' ? styles.held : 'muted'}>{s.text}</span>
      </div>
      {s.notInServer === null ? (
        <p className="muted small" data-testid="not-in-server">
          Listed users not in the server: not available. {link.listing_unavailable?.message}
        </p>
      ) : s.notInServer > 0 ? (
        <p className="muted small" data-testid="not-in-server">
          {fmt(s.notInServer)} listed {s.notInServer === 1 ? 'user is' : 'users are'} not in the server: they get the
          role when they join.
        </p>
      ) : null}
      {s.deleted > 0 ? (
        <p className="muted small" data-testid="deleted-accounts">
          {fmt(s.deleted)} listed{' '}
          {s.deleted === 1
            ? 'user no longer exists: the account was deleted'
            : 'users no longer exist: the accounts were deleted'}
          , so nobody can give them the role.
        </p>
      ) : null}
      <div
        className={styles.progress}
        role="progressbar"
        aria-label="Sync progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={s.percent}
        aria-valuetext={`${s.percent}% synced, ${s.text}`}
      >
        <div
          className={`${styles.bar} ${TONE_CLASS[s.tone]}`}
          data-moving={s.moving ? 'true' : 'false'}
          style={{ width: `${s.percent}%` }}
        />
      </div>
    </div>
  );
}
