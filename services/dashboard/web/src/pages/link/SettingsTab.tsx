import type { StripPreviewView, UpdateLinkBody } from '@rolelink/contracts';
import { useId, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { dashboardApi } from '../../api/dashboard-api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/ErrorState';
import { StripPreviewPanel } from '../../components/StripPreviewPanel';
import { useToast } from '../../components/toasts';
import { useDialogPreview } from '../../hooks/use-dialog-preview';
import { guildPath } from '../../paths';
import { useLinkContext } from './link-context';

/** One setting as a switch, with its explanation under it (the switch's description). */
function SettingSwitch(props: { id: string; label: string; checked: boolean; disabled: boolean; onChange: (on: boolean) => void; children: ReactNode }) {
  const { id, label, checked, disabled, onChange, children } = props;
  return (
    <div className="setting">
      <div className="switch-row">
        <input type="checkbox" role="switch" className="switch" id={id} checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-describedby={`${id}-help`} />
        <label htmlFor={id}>{label}</label>
      </div>
      <p className="field-help field-help-indent" id={`${id}-help`}>
        {children}
      </p>
    </div>
  );
}

/** Settings: enable/disable, the owner's trusted flag, and deleting the link (spec 3.1, last row). */
export function SettingsTab() {
  const { guildId, roleId, card, owner, roleName, setCard } = useLinkContext();
  const toast = useToast();
  const navigate = useNavigate();
  const id = useId();
  const [pending, setPending] = useState<keyof UpdateLinkBody | 'delete' | 'resync' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  // Off by default (docs/dashboard.md): deleting a link never takes roles away unless the admin asks.
  const [stripRoles, setStripRoles] = useState(false);
  // What the strip would do, loaded when the box is ticked; a lock-out needs its own second tick.
  const preview = useDialogPreview<StripPreviewView>(confirming && stripRoles, (signal) => dashboardApi.stripPreview(guildId, roleId, signal), `${guildId}/${roleId}`);
  const [lockoutConfirmed, setLockoutConfirmed] = useState(false);
  const needsLockoutTick = preview.view !== null && (preview.view.lockout.length > 0 || !preview.view.lockout_checked);
  const canConfirm = !stripRoles || (preview.view !== null && (!needsLockoutTick || lockoutConfirmed));
  // The switch shows the requested state at once and falls back to the server's answer (or the old state).
  const [requested, setRequested] = useState<UpdateLinkBody>({});
  const enabled = requested.enabled ?? card.enabled;
  const trusted = requested.trusted ?? card.trusted;

  async function update(body: UpdateLinkBody, what: keyof UpdateLinkBody) {
    setPending(what);
    setError(null);
    setRequested(body);
    try {
      const next = await dashboardApi.updateLink(guildId, roleId, body);
      setCard(next);
      toast.show('success', what === 'enabled' ? (next.enabled ? 'Link enabled' : 'Link disabled') : next.trusted ? 'Marked as trusted' : 'No longer trusted');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setRequested({});
      setPending(null);
    }
  }

  async function resync() {
    setPending('resync');
    setError(null);
    try {
      const r = await dashboardApi.resync(guildId, roleId);
      toast.show(
        'success',
        'Resync started',
        r.retried ? `${r.retried.toLocaleString()} failed ${r.retried === 1 ? 'member is' : 'members are'} retried now; the whole list is being checked.` : 'The whole list is being checked against what the bot applied.',
      );
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(null);
    }
  }

  function openDelete() {
    // Each opening starts unticked, whatever an earlier (cancelled or failed) attempt chose.
    setStripRoles(false);
    setLockoutConfirmed(false);
    setConfirming(true);
  }

  function chooseStrip(on: boolean) {
    setStripRoles(on);
    setLockoutConfirmed(false);
  }

  async function remove() {
    setPending('delete');
    try {
      const deleted = await dashboardApi.deleteLink(guildId, roleId, { strip_roles: stripRoles, confirm_lockout: stripRoles && lockoutConfirmed });
      setConfirming(false);
      const stripping = deleted.strip_count ?? 0;
      toast.show(
        'success',
        'Link deleted',
        stripRoles ? `${roleName} is no longer linked; the bot is removing it from the ${stripping.toLocaleString()} ${stripping === 1 ? 'member' : 'members'} this link gave it to.` : `${roleName} is no longer linked to its plugin.`,
      );
      void navigate(guildPath(guildId));
    } catch (err) {
      setConfirming(false);
      setError(err instanceof Error ? err.message : String(err));
      setPending(null);
    }
  }

  return (
    <div className="settings">
      <h2>Settings</h2>
      {error ? <ErrorBanner message={error} /> : null}

      <SettingSwitch id={`${id}-enabled`} label="Enabled" checked={enabled} disabled={pending !== null} onChange={(on) => void update({ enabled: on }, 'enabled')}>
        A disabled link refuses every call the plugin makes to the User Management API and the bot stops syncing it. The stored list is kept.
      </SettingSwitch>

      <SettingSwitch id={`${id}-trusted`} label="Trusted integration" checked={trusted} disabled={!owner || pending !== null} onChange={(on) => void update({ trusted: on }, 'trusted')}>
        A trusted link is never subject to the large-removal hold: lists that remove many members apply at once, without the owner's confirmation.
        {owner ? '' : ' Only the server owner can change this.'}
      </SettingSwitch>

      <div className="setting">
        <h3>Resync now</h3>
        <p className="field-help">Retries every member whose role change failed, at once, and walks the whole list against what the bot has applied. Changes someone made by hand on the platform are found by the periodic reconcile.</p>
        <button type="button" className="btn" onClick={() => void resync()} disabled={pending !== null}>
          {pending === 'resync' ? 'Resyncing…' : 'Resync now'}
        </button>
      </div>

      <div className="danger-zone">
        <h3>Delete this link</h3>
        <p>The role stops being managed by the plugin. To give the plugin a new token, delete the link and create it again.</p>
        <button type="button" className="btn btn-danger" onClick={openDelete} disabled={pending !== null}>
          Delete link
        </button>
      </div>

      <ConfirmDialog
        open={confirming}
        title={`Delete the link for ${roleName}?`}
        confirmLabel={pending === 'delete' ? 'Deleting…' : 'Delete permanently'}
        danger
        busy={pending === 'delete'}
        confirmDisabled={!canConfirm}
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      >
        <ul>
          <li>The plugin server is told that the link is gone.</li>
          <li>The link's API token stops working at once: the plugin can no longer change who holds the role.</li>
          {stripRoles ? (
            <li>The bot removes the role from the members this link gave it to, and only from them. Removals follow the platform's rate limits, so a large list takes a while; if the bot restarts it carries on where it stopped.</li>
          ) : (
            <li>Role assignments already made stay as they are; members keep the role until someone removes it.</li>
          )}
        </ul>
        <div className="checkbox-row">
          <input type="checkbox" id={`${id}-strip`} checked={stripRoles} disabled={pending === 'delete'} onChange={(e) => chooseStrip(e.target.checked)} aria-describedby={`${id}-strip-help`} />
          <label htmlFor={`${id}-strip`}>Also remove the role from the members this link gave it to</label>
        </div>
        <p className="field-help field-help-indent-check" id={`${id}-strip-help`}>
          Off by default. Only members the bot gave the role to through this link lose it.
        </p>
        {stripRoles ? <StripPreviewPanel preview={preview.view} error={preview.error} lockoutConfirmed={lockoutConfirmed} onLockoutConfirmed={setLockoutConfirmed} checkboxId={`${id}-lockout`} disabled={pending === 'delete'} /> : null}
        <p>This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
