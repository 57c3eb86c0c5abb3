import type { AppliedRemovals, LinkView } from '@rolelink/contracts';
import { useId, useState } from 'react';
import { dashboardApi } from '../api/dashboard-api';
import { DateTime } from './DateTime';
import { useToast } from './toasts';

const WINDOW_MS = 60 * 60 * 1000;

type Props = {
  guildId: string;
  roleId: string;
  held: NonNullable<LinkView['held_change']>;
  /** Undefined while the guild is still loading: no owner-only control or notice is shown yet. */
  owner: boolean | undefined;
  /** Called with the confirmation; the card keeps showing it even when the refreshed link drops the hold. */
  onApplied: (applied: AppliedRemovals) => void;
};

/**
 * A large removal the plugin asked for and the service held (spec 3.3). The owner's confirmation opens a
 * one-hour window in which the plugin's resent list is accepted; the list itself was never stored.
 */
export function HeldChangePanel({ guildId, roleId, held, owner, onApplied }: Props) {
  const toast = useToast();
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const windowEnd = held.confirmed_at ? new Date(Date.parse(held.confirmed_at) + WINDOW_MS).toISOString() : null;
  const windowOpen = windowEnd !== null && Date.parse(windowEnd) > Date.now();
  const fmt = (n: number) => n.toLocaleString();

  async function apply() {
    setBusy(true);
    setError(null);
    try {
      const result = await dashboardApi.applyRemovals(guildId, roleId);
      toast.show('success', 'Removals confirmed', 'The plugin must resend its list within the hour.');
      onApplied(result);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="held-panel" role="group" aria-labelledby={titleId}>
      <p className="held-title" id={titleId}>
        <span aria-hidden="true">⚠ </span>Removal held: {fmt(held.previous)} → {fmt(held.next)} members ({fmt(held.removals)} removals)
      </p>
      <p>
        The plugin sent a list that would remove many members at once, so nothing was changed. Held <DateTime iso={held.created_at} />.
      </p>
      {held.confirmed_at && windowEnd ? (
        <p>
          Confirmed <DateTime iso={held.confirmed_at} />.{' '}
          {windowOpen ? (
            <>
              The plugin's resent list is accepted until <DateTime iso={windowEnd} />.
            </>
          ) : (
            <>
              The one-hour window ended at <DateTime iso={windowEnd} relative={false} /> without the list being resent.
            </>
          )}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {owner === undefined ? null : owner ? (
        windowOpen ? null : (
          <button type="button" className="btn btn-warning" onClick={() => void apply()} disabled={busy}>
            {busy ? 'Applying…' : 'Apply removals'}
          </button>
        )
      ) : (
        <p className="muted">Only the server owner can apply removals.</p>
      )}
    </div>
  );
}

/** What the owner is told after applying: the plugin has to send its list again, within the hour. */
export function AppliedRemovalsNotice({ applied }: { applied: AppliedRemovals }) {
  return (
    <p className="held-applied" role="status">
      Removals confirmed ({applied.removals.toLocaleString()}). The plugin must resend its list within the hour (before <DateTime iso={applied.window_ends_at} relative={false} />) — the list was not stored, so nothing changes until it does.
    </p>
  );
}
