import { AUDIT_ACTIONS, type AuditAction, type DashboardAuditLog } from '@rolelink/contracts';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useParams } from 'react-router';
import { queries } from '../api/queries';
import { heldNumbers } from '../format/held-change';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { DateTime } from '../components/DateTime';
import { ErrorState, Loading } from '../components/ErrorState';
import { usePageTitle } from '../components/PageTitle';
import { RoleName } from '../components/RoleName';
import styles from './GuildAuditPage.module.css';
import { Button } from '../components/Button';
import { ScrollTable } from '../components/ScrollTable';

const ACTION_TEXT: Record<AuditAction, string> = {
  link_created: 'Link created',
  link_deleted: 'Link deleted',
  config_saved: 'Configuration saved',
  removals_applied: 'Removals applied',
  list_resend_requested: 'Plugin asked to resend its list',
  link_enabled: 'Link enabled',
  link_disabled: 'Link disabled',
  trusted_set: 'Marked trusted',
  trusted_unset: 'No longer trusted',
  plan_changed: 'Plan changed',
  resync_requested: 'Resync requested',
  notify_settings_changed: 'Notification settings changed',
  overrides_changed: 'Overrides changed',
  event_resent: 'Plugin event re-sent',
  privileged_consent: 'Owner consented to a privileged role',
};

type Entry = DashboardAuditLog['entries'][number];

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString() : String(v));

const ids = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** `{added, removed}` per list, then each list's size after (admin's `changeOverrides` audit detail). */
function overridesText(d: Record<string, unknown>): string {
  const part = (key: 'added' | 'removed') => {
    const lists = (d[key] ?? {}) as Record<string, unknown>;
    return (['always', 'never'] as const).flatMap((k) =>
      ids(lists[k]).length
        ? [`${key} ${ids(lists[k]).join(', ')} (${k === 'always' ? 'always keep' : 'never give'})`]
        : [],
    );
  };
  const after = (d.after ?? {}) as Record<string, unknown>;
  return [
    ...part('added'),
    ...part('removed'),
    `now ${n(after.always)} always keep, ${n(after.never)} never give`,
  ].join('; ');
}

/** What changed, in words (every value is text: nothing here is rendered as HTML). */
function detailText(e: Entry): string {
  const d = e.detail ?? {};
  switch (e.action) {
    case 'link_created':
      return `Plugin ${String(d.plugin_url)}; ${d.member_mode === 'keep' ? 'kept' : 'handed over'} ${n(d.existing_members)} current ${d.existing_members === 1 ? 'member' : 'members'}`;
    case 'link_deleted':
      return d.strip_roles
        ? `Role removed from the ${n(d.strip_count)} members the link gave it to${d.lockout_confirmed ? ' (lock-out confirmed)' : ''}`
        : 'Members kept the role';
    case 'config_saved':
      return `Fields: ${Array.isArray(d.fields) ? d.fields.join(', ') : '—'} (plugin answered ${n(d.plugin_status)}; values are not recorded)`;
    case 'removals_applied': {
      const [previous, next, removals] = [d.previous, d.next, d.removals].map(Number) as [number, number, number];
      // Entries written before additions were recorded: they follow from the other three (previous − removals + additions = next).
      return heldNumbers({
        previous,
        next,
        removals,
        additions: typeof d.additions === 'number' ? d.additions : next - previous + removals,
      });
    }
    case 'notify_settings_changed':
      return `Events: ${Array.isArray(d.events) && d.events.length ? d.events.join(', ') : 'none'}; DM to the owner ${d.dm_owner ? 'on' : 'off'}; channel ${typeof d.channel_id === 'string' ? d.channel_id : 'none'}`;
    case 'overrides_changed':
      return overridesText(d);
    case 'privileged_consent':
      return `Linked "${String(d.role_name)}", which carries ${ids(d.permissions).join(', ')}`;
    case 'list_resend_requested':
      return `list.resend_requested (${String(d.event_id)}) for the removal applied as ${String(d.change_id)}; the window ends ${String(d.window_ends_at)}`;
    case 'event_resent':
      return `${String(d.kind)} (#${n(d.seq)}, ${String(d.event_id)}) queued for delivery again`;
    case 'resync_requested':
      return `${n(d.retried)} failed ${d.retried === 1 ? 'member' : 'members'} retried at once; whole list walked`;
    case 'plan_changed':
      return `${String(d.plan)}, ${n(d.paid_slots)} paid slots`;
    default:
      return '';
  }
}

/** `/guilds/:guildId/audit`: who did what to this server's links, newest first, with filters and "Show older". */
export function GuildAuditPage() {
  const guildId = useParams().guildId ?? '';
  usePageTitle('Audit log');
  const id = useId();
  const [action, setAction] = useState<AuditAction | ''>('');
  const [roleId, setRoleId] = useState('');
  const filters = { ...(action ? { action } : {}), ...(roleId ? { role_id: roleId } : {}) };
  // One page per "Show older"; new filters are a new query that starts again from the newest entries.
  const page = useInfiniteQuery(queries.audit(guildId, filters));
  const guild = useQuery(queries.guild(guildId));
  const roles = new Map((guild.data?.links ?? []).map((l) => [l.role_id, l.role]));
  const entries: Entry[] = page.data?.pages.flatMap((p) => p.entries) ?? [];

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current="Audit log" />
      <div className="page-header">
        <h1>Audit log</h1>
      </div>
      <p className="muted">
        Every admin action on this server's links, newest first: who did it, when, and what changed. Entries are kept
        for a year. Configuration values are never recorded, only which fields were saved.
      </p>
      <div className={styles.filters}>
        <label htmlFor={`${id}-action`}>Action</label>
        <select id={`${id}-action`} value={action} onChange={(e) => setAction(e.target.value as AuditAction | '')}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTION_TEXT[a]}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-role`}>Role</label>
        <select id={`${id}-role`} value={roleId} onChange={(e) => setRoleId(e.target.value)}>
          <option value="">All roles</option>
          {[...roles].map(([rid, role]) => (
            <option key={rid} value={rid}>
              {role?.name ?? rid}
            </option>
          ))}
        </select>
      </div>
      {page.isPending ? <Loading /> : null}
      {!page.data && page.error ? <ErrorState error={page.error} onRetry={() => void page.refetch()} /> : null}
      {page.data && entries.length === 0 ? (
        <div className="empty-state">
          <p>No admin actions recorded{action || roleId ? ' for these filters' : ''}.</p>
        </div>
      ) : null}
      {entries.length > 0 ? (
        <ScrollTable label="Audit log table">
          <table className={styles.table}>
            <caption className="visually-hidden">Admin actions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Role</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>
                    <DateTime iso={e.at} />
                  </td>
                  <td>
                    {e.actor.name}
                    <div className="muted small">{e.actor.via === 'dashboard' ? 'dashboard' : 'command line'}</div>
                  </td>
                  <td>{ACTION_TEXT[e.action] ?? e.action}</td>
                  <td>{e.role_id ? <RoleName role={e.role} roleId={e.role_id} /> : '—'}</td>
                  <td>{detailText(e)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {page.hasNextPage ? (
        <Button onClick={() => void page.fetchNextPage()} disabled={page.isFetchingNextPage}>
          {page.isFetchingNextPage ? 'Loading…' : 'Show older'}
        </Button>
      ) : null}
    </>
  );
}
