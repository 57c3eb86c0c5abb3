import type { LinkView } from '@rolelink/contracts';
import { humanizeEta } from '../format/duration';

/** Synced members against what can be synced: min(users, synced limit); held users are not "behind". */
export function SyncProgress({ link }: { link: LinkView }) {
  const target = Math.min(link.counts.user_count, link.limits.synced_limit);
  const done = Math.min(link.counts.synced_count, target);
  const percent = target === 0 ? 100 : Math.floor((done / target) * 1000) / 10;
  const eta = link.sync.eta_seconds;
  const etaText = eta === null ? (done >= target ? 'up to date' : 'ETA unknown') : eta <= 0 ? 'up to date' : `ETA ${humanizeEta(eta)}`;
  const fmt = (n: number) => n.toLocaleString();
  return (
    <div className="sync">
      <div className="sync-label">
        <span>
          Synced {fmt(done)} of {fmt(target)}
        </span>
        <span className="muted">{etaText}</span>
      </div>
      <div className="progress" role="progressbar" aria-label="Sync progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${percent}% synced, ${etaText}`}>
        <div className={`progress-bar${percent >= 100 ? ' progress-done' : ''}`} style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
