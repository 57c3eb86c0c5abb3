import { zodResolver } from '@hookform/resolvers/zod';
import { deleteLinkBody, type UpdateLinkBody } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { dashboardApi } from '../../api/dashboard-api';
import { queries, queryKeys } from '../../api/queries';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/ErrorState';
import { StripPreviewPanel } from '../../components/StripPreviewPanel';
import { useToast } from '../../components/toasts';
import { guildPath } from '../../paths';
import { useLinkContext } from './link-context';
import styles from './SettingsTab.module.css';
import { Button } from '../../components/Button';
import { FieldHelp } from '../../components/Field';

/** The delete dialog's choices: the contract's body (without its bare-DELETE default), a lock-out confirmation sent only with a strip. */
const deleteLinkChoice = deleteLinkBody
  .unwrap()
  .transform((b) => ({ strip_roles: b.strip_roles, confirm_lockout: b.strip_roles && b.confirm_lockout }));
type DeleteLinkChoice = z.output<typeof deleteLinkChoice>;
type DeleteLinkForm = z.input<typeof deleteLinkChoice>;

/** One setting as a switch, with its explanation under it (the switch's description). */
function SettingSwitch(props: {
  id: string;
  label: string;
  checked: boolean;
  disabled: boolean;
  onChange: (on: boolean) => void;
  children: ReactNode;
}) {
  const { id, label, checked, disabled, onChange, children } = props;
  return (
    <div className={styles.setting}>
      <div className="switch-row">
        <input
          type="checkbox"
          role="switch"
          className="switch"
          id={id}
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
          aria-describedby={`${id}-help`}
        />
        <label htmlFor={id}>{label}</label>
      </div>
      <FieldHelp indent="switch" id={`${id}-help`}>
        {children}
      </FieldHelp>
    </div>
  );
}

/** Settings: enable/disable, the owner's trusted flag, and deleting the link (spec 3.1, last row). */
export function SettingsTab() {
  const { guildId, roleId, card, owner, roleName } = useLinkContext();
  const toast = useToast();
  const navigate = useNavigate();
  const client = useQueryClient();
  const id = useId();
  const [error, setError] = useState<Error | null>(null);
  const [confirming, setConfirming] = useState(false);
  // The delete dialog's choices are a form over the contract's `deleteLinkBody`. Stripping is off by
  // default (docs/dashboard.md): deleting a link never takes roles away unless the admin asks.
  const { control, setValue, reset, handleSubmit } = useForm<DeleteLinkForm, unknown, DeleteLinkChoice>({
    resolver: zodResolver(deleteLinkChoice),
    defaultValues: { strip_roles: false, confirm_lockout: false },
  });
  const [strip, lockout] = useWatch({ control, name: ['strip_roles', 'confirm_lockout'] });
  const stripRoles = strip === true;
  const lockoutConfirmed = lockout === true;
  // What the strip would do, loaded when the box is ticked (each tick loads it afresh); a lock-out needs its own second tick.
  const preview = useQuery({ ...queries.stripPreview(guildId, roleId), enabled: confirming && stripRoles });
  const previewView = preview.data ?? null;
  const needsLockoutTick = previewView !== null && (previewView.lockout.length > 0 || !previewView.lockout_checked);
  const canConfirm = !stripRoles || (previewView !== null && (!needsLockoutTick || lockoutConfirmed));
  const fail = (err: Error) => setError(err);

  const update = useMutation({
    mutationFn: (body: UpdateLinkBody) => dashboardApi.updateLink(guildId, roleId, body),
    onMutate: () => setError(null),
    onSuccess: (next, body) => {
      client.setQueryData(queryKeys.link(guildId, roleId), next);
      void client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
      toast.show(
        'success',
        body.enabled !== undefined
          ? next.enabled
            ? 'Link enabled'
            : 'Link disabled'
          : next.trusted
            ? 'Marked as trusted'
            : 'No longer trusted',
      );
    },
    onError: fail,
  });
  const resync = useMutation({
    mutationFn: () => dashboardApi.resync(guildId, roleId),
    onMutate: () => setError(null),
    onSuccess: (r) =>
      toast.show(
        'success',
        'Resync started',
        r.retried
          ? `${r.retried.toLocaleString()} failed ${r.retried === 1 ? 'member is' : 'members are'} retried now; the whole list is being checked.`
          : 'The whole list is being checked against what the bot applied.',
      ),
    onError: fail,
  });
  const remove = useMutation({
    mutationFn: (body: DeleteLinkChoice) => dashboardApi.deleteLink(guildId, roleId, body),
    onSuccess: async (deleted) => {
      // The server's page must not show the deleted card: its guild is read again before going there.
      void client.invalidateQueries({ queryKey: queryKeys.guilds });
      await client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
      setConfirming(false);
      const stripping = deleted.strip_count ?? 0;
      toast.show(
        'success',
        'Link deleted',
        deleted.strip_roles
          ? `${roleName} is no longer linked; the bot is removing it from the ${stripping.toLocaleString()} ${stripping === 1 ? 'member' : 'members'} this link gave it to.`
          : `${roleName} is no longer linked to its plugin.`,
      );
      // Once off the link's page, nothing of the deleted link stays cached (a new link may take the role).
      void Promise.resolve(navigate(guildPath(guildId))).then(() =>
        client.removeQueries({ queryKey: queryKeys.link(guildId, roleId) }),
      );
    },
    onError: (err) => {
      setConfirming(false);
      fail(err);
    },
  });
  const deleting = remove.isPending || remove.isSuccess;
  const pending = update.isPending || resync.isPending || deleting;
  // The switch shows the requested state at once and falls back to the server's answer (or the old state).
  const requested = update.isPending ? update.variables : {};
  const enabled = requested.enabled ?? card.enabled;
  const trusted = requested.trusted ?? card.trusted;

  /** The strip preview is loaded afresh for each tick of the box: the last answer is dropped first. */
  function chooseStrip(on: boolean) {
    client.removeQueries({ queryKey: queryKeys.stripPreview(guildId, roleId) });
    setValue('strip_roles', on);
    setValue('confirm_lockout', false);
  }

  function openDelete() {
    // Each opening starts unticked, whatever an earlier (cancelled or failed) attempt chose.
    client.removeQueries({ queryKey: queryKeys.stripPreview(guildId, roleId) });
    reset();
    setConfirming(true);
  }

  return (
    <div className={styles.settings}>
      <h2>Settings</h2>
      {error ? <ErrorBanner error={error} /> : null}

      <SettingSwitch
        id={`${id}-enabled`}
        label="Enabled"
        checked={enabled}
        disabled={pending}
        onChange={(on) => update.mutate({ enabled: on })}
      >
        A disabled link refuses every call the plugin makes to the User Management API and the bot stops syncing it. The
        stored list is kept.
      </SettingSwitch>

      <SettingSwitch
        id={`${id}-trusted`}
        label="Trusted integration"
        checked={trusted}
        disabled={!owner || pending}
        onChange={(on) => update.mutate({ trusted: on })}
      >
        A trusted link is never subject to the large-removal hold: lists that remove many members apply at once, without
        the owner's confirmation.
        {owner ? '' : ' Only the server owner can change this.'}
      </SettingSwitch>

      <div className={styles.setting}>
        <h3>Resync now</h3>
        <FieldHelp>
          Retries every member whose role change failed, at once, and walks the whole list against what the bot has
          applied. Changes someone made by hand on the platform are found by the periodic reconcile.
        </FieldHelp>
        <Button onClick={() => resync.mutate()} disabled={pending}>
          {resync.isPending ? 'Resyncing…' : 'Resync now'}
        </Button>
      </div>

      <div className={styles.dangerZone}>
        <h3>Delete this link</h3>
        <p>
          The role stops being managed by the plugin. To give the plugin a new token, delete the link and create it
          again.
        </p>
        <Button tone="danger" onClick={openDelete} disabled={pending}>
          Delete link
        </Button>
      </div>

      <ConfirmDialog
        open={confirming}
        title={`Delete the link for ${roleName}?`}
        confirmLabel={deleting ? 'Deleting…' : 'Delete permanently'}
        danger
        busy={deleting}
        confirmDisabled={!canConfirm}
        onConfirm={() => void handleSubmit((body) => remove.mutate(body))()}
        onCancel={() => setConfirming(false)}
      >
        <ul>
          <li>The plugin server is told that the link is gone.</li>
          <li>The link's API token stops working at once: the plugin can no longer change who holds the role.</li>
          {stripRoles ? (
            <li>
              The bot removes the role from the members this link gave it to, and only from them. Removals follow the
              platform's rate limits, so a large list takes a while; if the bot restarts it carries on where it stopped.
            </li>
          ) : (
            <li>Role assignments already made stay as they are; members keep the role until someone removes it.</li>
          )}
        </ul>
        <div className="checkbox-row">
          <input
            type="checkbox"
            id={`${id}-strip`}
            checked={stripRoles}
            disabled={deleting}
            onChange={(e) => chooseStrip(e.target.checked)}
            aria-describedby={`${id}-strip-help`}
          />
          <label htmlFor={`${id}-strip`}>Also remove the role from the members this link gave it to</label>
        </div>
        <FieldHelp indent="check" id={`${id}-strip-help`}>
          Off by default. Only members the bot gave the role to through this link lose it.
        </FieldHelp>
        {stripRoles ? (
          <StripPreviewPanel
            preview={previewView}
            error={preview.error?.message ?? null}
            lockoutConfirmed={lockoutConfirmed}
            onLockoutConfirmed={(on) => setValue('confirm_lockout', on)}
            checkboxId={`${id}-lockout`}
            disabled={deleting}
          />
        ) : null}
        <p>This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
