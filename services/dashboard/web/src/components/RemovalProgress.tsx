import type { RemovalProgressView } from '@rolelink/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dashboardApi } from '../api/dashboard-api';
import { queryKeys } from '../api/queries';
import styles from './HeldChangePanel.module.css';
import { Button } from './Button';
import { DateTime } from './DateTime';
import { FieldErrorText } from './Field';
import { useToast } from './toasts';

type Props = { guildId: string; roleId: string; removal: RemovalProgressView; owner: boolean | undefined };

const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * "Ask the plugin to resend": while an applied removal waits for the plugin's list, the owner
 * can have the service send the plugin `list.resend_requested`. Whether the plugin can hear it, when it
 * was last asked and when it can be asked again all come from the server (`removal.resend`); the card
 * refreshes every few seconds, so the button comes back when the server allows a new request.
 */
export function ResendRequest({ guildId, roleId, removal, owner }: Props) {
  const toast = useToast();
  const client = useQueryClient();
  const ask = useMutation({
    mutationFn: () => dashboardApi.requestResend(guildId, roleId),
    onSuccess: (r) => {
      if (r.queued)
        toast.show(
          'success',
          'Plugin asked to resend its list',
          'The service sends it the request now; its list is accepted until the window ends.',
        );
      else
        toast.show(
          'info',
          'Already asked',
          'The plugin was asked less than five minutes ago; no second request was sent.',
        );
      void client.invalidateQueries({ queryKey: queryKeys.link(guildId, roleId), exact: true });
      void client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
    },
  });
  const { listening, requested_at: requestedAt, available_at: availableAt } = removal.resend;
  if (owner === undefined) return null;
  if (!listening) {
    return (
      <p className="muted">
        The plugin did not ask for list.resend_requested events, so it cannot be asked from here: it has to resend its
        list by itself.
      </p>
    );
  }
  return (
    <>
      {requestedAt ? (
        <p>
          The plugin was asked to resend its list <DateTime iso={requestedAt} />.
          {availableAt ? (
            <>
              {' '}
              It can be asked again after <DateTime iso={availableAt} relative={false} />.
            </>
          ) : null}
        </p>
      ) : null}
      {ask.error ? <FieldErrorText role="alert">{ask.error.message}</FieldErrorText> : null}
      {owner ? (
        <Button onClick={() => ask.mutate()} disabled={ask.isPending || availableAt !== null}>
          {ask.isPending ? 'Asking…' : 'Ask the plugin to resend'}
        </Button>
      ) : (
        <p className="muted">Only the server owner can ask the plugin to resend its list.</p>
      )}
    </>
  );
}

/**
 * An applied removal once nothing is held any more (the plugin's list arrived, or the owner applied an
 * admin-source hold): under way or done, as the server measures it. While it waits for the list the held
 * change's panel says so instead.
 */
export function RemovalProgressNotice({ removal }: { removal: RemovalProgressView }) {
  const n = removal.removals;
  if (removal.kind === 'admin_source') {
    return (
      <p className={styles.applied} role="status">
        {removal.state === 'applied'
          ? `Removals applied (${n.toLocaleString()}): the bot removed the role from ${n === 1 ? 'that member' : 'those members'}.`
          : `Removals confirmed (${n.toLocaleString()}): the bot removes the role from ${n === 1 ? 'that member' : 'those members'} now.`}
      </p>
    );
  }
  if (removal.state === 'removing' || removal.state === 'applied') {
    const resent = removal.list_resent_at ? <DateTime iso={removal.list_resent_at} /> : null;
    return (
      <p className={styles.applied} role="status">
        {removal.state === 'removing' ? 'Removals in progress' : 'Removals applied'} ({count(n, 'removal', 'removals')}{' '}
        confirmed): the plugin resent its list {resent}
        {removal.state === 'removing'
          ? ', and the bot is removing the role from the members not on it.'
          : ', and the bot made the removals.'}
      </p>
    );
  }
  return (
    <p className="muted" role="status">
      The removal applied <DateTime iso={removal.confirmed_at} /> was not carried out: the plugin did not resend its
      list before <DateTime iso={removal.window_ends_at} relative={false} />.
    </p>
  );
}
