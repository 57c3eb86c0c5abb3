import type { HeldChangePreview, LinkView, RemovalProgressView } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { dashboardApi } from '../api/dashboard-api';
import { queries, queryKeys } from '../api/queries';
import { heldNumbers } from '../format/held-change';
import styles from './HeldChangePanel.module.css';
import { ConfirmDialog } from './ConfirmDialog';
import { DateTime } from './DateTime';
import { ResendRequest } from './RemovalProgress';
import { useToast } from './toasts';
import { Button } from './Button';
import { FieldErrorText } from './Field';

type Held = NonNullable<LinkView['held_change']>;

type Props = {
  guildId: string;
  roleId: string;
  roleName: string;
  held: Held;
  /** Where this hold stands once applied, as the server says (the link's `removal` when it is this hold's). */
  removal: RemovalProgressView | null;
  /** Undefined while the guild is still loading: no owner-only control or notice is shown yet. */
  owner: boolean | undefined;
};

const fmt = (n: number) => n.toLocaleString();
const plural = (n: number, one: string, many: string) => `${fmt(n)} ${n === 1 ? one : many}`;

/** "ana, ben and 2,978 more": the recorded sample by name (or id), then the rest of the removals as a count. */
function sampleText(p: HeldChangePreview): string {
  const names = p.sample.map((m) => m.name ?? m.user_id);
  const more = p.change.removals - names.length;
  return more > 0 ? `${names.join(', ')} and ${fmt(more)} more` : names.join(', ');
}

/** The Apply removals dialog's body: what the held list does, who it leaves out, and what confirming does. */
function HeldPreview({ preview, error }: { preview: HeldChangePreview | null; error: string | null }) {
  if (error) return <FieldErrorText>The held change could not be loaded: {error}</FieldErrorText>;
  if (!preview) return <p aria-busy="true">Loading the held change…</p>;
  const c = preview.change;
  if (c.kind === 'admin_source') {
    return (
      <>
        <p className={styles.numbers}>
          <strong>{plural(c.removals, 'member loses', 'members lose')} the role</strong>, and with it their only
          Administrator or Manage Server: {sampleText(preview)}.
        </p>
        <ul>
          <li>The plugin's list already left them out; the bot kept the role on them and applied everything else.</li>
          <li>
            Confirming lets the bot remove it now, from these members only. They can no longer manage this server unless
            another role gives them the permission.
          </li>
        </ul>
      </>
    );
  }
  return (
    <>
      <p className={styles.numbers}>
        <strong>{plural(c.removals, 'member loses', 'members lose')} the role</strong> and{' '}
        {plural(c.additions, 'member gains', 'members gain')} it: {heldNumbers(c)}.
      </p>
      {preview.sample.length ? <p>Left out of the held list: {sampleText(preview)}.</p> : null}
      <ul>
        <li>Confirming changes nothing by itself: the held list was not stored.</li>
        <li>
          For one hour the plugin's resent list is accepted without another hold; the bot then removes the role from
          everyone not on it, at the platform's rate limits.
        </li>
        <li>If the plugin resends a different list, that list is what applies.</li>
      </ul>
    </>
  );
}

/**
 * A large removal the plugin asked for and the service held (spec 3.3). The owner's confirmation, given
 * in a dialog that shows the counts and who the held list leaves out, opens a one-hour window in which
 * the plugin's resent list is accepted; the list itself was never stored.
 */
export function HeldChangePanel({ guildId, roleId, roleName, held, removal, owner }: Props) {
  const toast = useToast();
  const client = useQueryClient();
  const titleId = useId();
  const [confirming, setConfirming] = useState(false);

  // The server says whether the window is open (the card refreshes every few seconds): no guess from this clock.
  const windowEnd = held.confirmed_at && removal ? removal.window_ends_at : null;
  const windowOpen = removal?.state === 'awaiting_list';

  // Loaded each time the dialog opens (open() drops the last answer), as the delete dialog's strip preview is.
  const preview = useQuery({ ...queries.heldChange(guildId, roleId), enabled: confirming });
  const view = preview.data ?? null;

  const apply = useMutation({
    mutationFn: (changeId: string) => dashboardApi.applyRemovals(guildId, roleId, { change_id: changeId }),
    onSuccess: (result) => {
      toast.show(
        'success',
        'Removals confirmed',
        result.kind === 'admin_source'
          ? 'The bot removes the role from them now.'
          : 'The plugin must resend its list within the hour.',
      );
      // The card only (exact): the config form under the same key keeps its unsaved edits.
      void client.invalidateQueries({ queryKey: queryKeys.link(guildId, roleId), exact: true });
      void client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
    },
    onSettled: () => setConfirming(false),
  });
  const busy = apply.isPending;

  function open() {
    client.removeQueries({ queryKey: queryKeys.heldChange(guildId, roleId) });
    setConfirming(true);
  }

  return (
    <div className={styles.panel} role="group" aria-labelledby={titleId}>
      <p className={styles.title} id={titleId}>
        <span aria-hidden="true">⚠ </span>Removal held:{' '}
        {held.kind === 'admin_source'
          ? `${plural(held.removals, 'member', 'members')} would lose their only Administrator or Manage Server`
          : heldNumbers(held)}
      </p>
      {held.kind === 'admin_source' ? (
        <p>
          The plugin's list leaves out {held.removals === 1 ? 'a member whose only' : 'members whose only'}{' '}
          Administrator or Manage Server is this role, so the bot kept it on them until the owner applies the removal;
          the rest of the list was applied. Held <DateTime iso={held.created_at} />.
        </p>
      ) : (
        <p>
          The plugin sent a list that would remove many members at once, so nothing was changed. Held{' '}
          <DateTime iso={held.created_at} />.
        </p>
      )}
      {held.confirmed_at && windowEnd ? (
        <p>
          Confirmed <DateTime iso={held.confirmed_at} />.{' '}
          {windowOpen ? (
            <>
              The held list was not stored, so nothing changes until the plugin resends it; its list is accepted without
              another hold until <DateTime iso={windowEnd} />.
            </>
          ) : (
            <>
              The one-hour window ended at <DateTime iso={windowEnd} relative={false} /> without the list being resent.
            </>
          )}
        </p>
      ) : null}
      {windowOpen && removal ? (
        <ResendRequest guildId={guildId} roleId={roleId} removal={removal} owner={owner} />
      ) : null}
      {apply.error ? <FieldErrorText role="alert">{apply.error.message}</FieldErrorText> : null}
      {owner === undefined ? null : owner ? (
        windowOpen ? null : (
          <Button tone="warning" onClick={open} disabled={busy}>
            Apply removals…
          </Button>
        )
      ) : (
        <p className="muted">Only the server owner can apply removals.</p>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Apply the held removal for ${roleName}?`}
        confirmLabel={
          busy ? 'Applying…' : view ? `Apply ${plural(view.change.removals, 'removal', 'removals')}` : 'Apply removals'
        }
        danger
        busy={busy}
        confirmDisabled={view === null}
        onConfirm={() => view && apply.mutate(view.change.change_id)}
        onCancel={() => setConfirming(false)}
      >
        <HeldPreview preview={view} error={preview.error?.message ?? null} />
      </ConfirmDialog>
    </div>
  );
}
