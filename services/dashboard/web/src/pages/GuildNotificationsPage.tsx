import { zodResolver } from '@hookform/resolvers/zod';
import {
  NOTIFY_KINDS,
  notifySettingsBody,
  type DashboardNotifications,
  type DashboardNotifySettings,
  type NotifyKind,
  type NotifySettings,
} from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { useParams } from 'react-router';
import type { z } from 'zod';
import { dashboardApi } from '../api/dashboard-api';
import { queries, queryKeys } from '../api/queries';
import { Badge } from '../components/Badge';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { DateTime } from '../components/DateTime';
import { ErrorBanner, ErrorState, Loading } from '../components/ErrorState';
import { usePageTitle } from '../components/PageTitle';
import { RoleName } from '../components/RoleName';
import { useToast } from '../components/toasts';
import styles from './GuildNotificationsPage.module.css';
import { Button } from '../components/Button';
import { Card } from '../components/Card';

const KIND_TEXT: Record<NotifyKind, string> = {
  removal_held: 'Large removal held',
  plugin_unhealthy: 'Plugin unhealthy or unreachable',
  plugin_recovered: 'Plugin healthy again',
  link_paused: 'Link paused by the plan',
  events_dropped: 'Plugin event dropped',
};

const DELIVERY_TEXT: Record<string, string> = {
  pending: 'Not sent yet',
  sent: 'Sent',
  folded: 'Sent in one message with others',
  off: 'Not sent: this event is off',
  failed: 'Not sent: the platform refused it',
};

type Item = DashboardNotifications['notifications'][number];

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString() : String(v));

/** What happened, in words (every value is text: nothing here is rendered as HTML). */
function detailText(item: Item): string {
  const d = item.detail ?? {};
  if (item.kind === 'link_paused')
    return `The ${String(d.plan)} plan allows ${n(d.slot_allowance)} link(s): the newest links beyond that stop syncing until the server upgrades or a link is deleted`;
  if (item.kind === 'events_dropped')
    return `${typeof d.plugin_url === 'string' ? d.plugin_url : 'The plugin'} did not take ${String(d.kind)} in 24 hours (${n(d.attempts)} attempts): re-send it from the link's Events tab`;
  if (item.kind === 'removal_held' && d.kind === 'admin_source')
    return `${n(d.removals)} ${d.removals === 1 ? 'member' : 'members'} would lose their only Administrator or Manage Server with this role: the bot holds the removal until the owner applies it on the link's page`;
  if (item.kind === 'removal_held')
    return `${n(d.previous)} → ${n(d.next)} members (${n(d.removals)} removals): apply or keep them on the link's page`;
  return `${typeof d.plugin_url === 'string' ? d.plugin_url : 'The plugin'} is ${String(d.status)}`;
}

function deliveryText(item: Item): string {
  const where = item.delivered_to.map((t) => (t === 'dm' ? 'DM to the owner' : 'channel')).join(' and ');
  return `${DELIVERY_TEXT[item.delivery] ?? item.delivery}${where ? ` (${where})` : ''}`;
}

/** `/guilds/:guildId/notifications`: what needed the owner, newest first, and which events send a message where. */
export function GuildNotificationsPage() {
  const guildId = useParams().guildId ?? '';
  usePageTitle('Notifications');
  const client = useQueryClient();
  const list = useQuery(queries.notifications(guildId));
  const guild = useQuery(queries.guild(guildId));
  const roles = new Map((guild.data?.links ?? []).map((l) => [l.role_id, l.role]));
  const items = list.data?.notifications ?? [];
  const markAllRead = useMutation({
    mutationFn: () => dashboardApi.markNotificationsRead(guildId, { all: true }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.notifications(guildId) }),
  });

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current="Notifications" />
      <div className="page-header">
        <h1>Notifications</h1>
        {list.data && list.data.unread > 0 ? (
          <div className="actions">
            <Button onClick={() => markAllRead.mutate()}>Mark all read ({list.data.unread})</Button>
          </div>
        ) : null}
      </div>
      <NotifySettingsForm guildId={guildId} />
      <h2>Recent notifications</h2>
      {list.isPending ? <Loading /> : null}
      {!list.data && list.error ? <ErrorState error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.data && items.length === 0 ? (
        <div className="empty-state">
          <p>Nothing has needed you yet.</p>
        </div>
      ) : null}
      {items.length > 0 ? (
        <ul className={styles.list} aria-label="Notifications, newest first">
          {items.map((item) => (
            <li key={item.id} className={item.read ? styles.item : `${styles.item} ${styles.unread}`}>
              <div className={styles.head}>
                {item.read ? null : <Badge tone="accent">Unread</Badge>}
                <strong>{KIND_TEXT[item.kind] ?? item.kind}</strong>
                {item.role_id ? <RoleName role={roles.get(item.role_id) ?? null} roleId={item.role_id} /> : null}
                <span className="muted small">
                  <DateTime iso={item.created_at} />
                </span>
              </div>
              <p>{detailText(item)}</p>
              <p className="muted small">{deliveryText(item)}</p>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/** Which events message the owner, and where: a DM from the bot, a channel of the server, both or neither. */
function NotifySettingsForm({ guildId }: { guildId: string }) {
  const settings = useQuery(queries.notifySettings(guildId));
  if (!settings.data)
    return settings.error ? <ErrorState error={settings.error} onRetry={() => void settings.refetch()} /> : <Loading />;
  // The form starts from the first answer and keeps the admin's edits when the query refetches later.
  return <NotifySettingsFields guildId={guildId} initial={settings.data} />;
}

function NotifySettingsFields({ guildId, initial }: { guildId: string; initial: DashboardNotifySettings }) {
  const id = useId();
  const toast = useToast();
  const client = useQueryClient();
  // The contract's own body schema checks the form; the channel picker's "No channel" ('') is null.
  const { register, handleSubmit, reset, formState } = useForm<
    z.input<typeof notifySettingsBody>,
    unknown,
    NotifySettings
  >({
    resolver: zodResolver(notifySettingsBody),
    defaultValues: { events: initial.events, dm_owner: initial.dm_owner, channel_id: initial.channel_id },
  });
  const save = useMutation({
    mutationFn: (body: NotifySettings) => dashboardApi.saveNotifySettings(guildId, body),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.notifySettings(guildId), saved);
      reset({ events: saved.events, dm_owner: saved.dm_owner, channel_id: saved.channel_id });
      toast.show('success', 'Notification settings saved');
    },
  });
  const saving = save.isPending;
  const problems = Object.values(formState.errors).flatMap((e) => (e?.message ? [e.message] : []));

  return (
    <Card
      as="form"
      className={styles.settings}
      onSubmit={(e) => void handleSubmit((body) => save.mutate(body))(e)}
      noValidate
      aria-label="Notification settings"
    >
      <h2>Notification settings</h2>
      <p className="muted small">
        Every event is listed below whatever you choose; these settings decide which ones the bot also sends as a
        message. At most one message per event kind every 10 minutes: a burst arrives as one message.
      </p>
      <fieldset>
        <legend>Events that send a message</legend>
        {NOTIFY_KINDS.map((kind) => (
          <label key={kind} className={styles.checkbox}>
            <input type="checkbox" value={kind} {...register('events')} /> {KIND_TEXT[kind]}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Where</legend>
        <label className={styles.checkbox}>
          <input type="checkbox" {...register('dm_owner')} /> Direct message to the server owner
        </label>
        <label htmlFor={`${id}-channel`}>Channel</label>
        <select id={`${id}-channel`} {...register('channel_id', { setValueAs: (v: string | null) => v || null })}>
          <option value="">No channel</option>
          {initial.channels.map((c) => (
            <option key={c.id} value={c.id}>
              #{c.name}
            </option>
          ))}
        </select>
      </fieldset>
      {problems.length > 0 ? (
        <p className="note note-danger" role="alert">
          {problems.join(' ')}
        </p>
      ) : null}
      {save.error ? <ErrorBanner error={save.error} /> : null}
      <Button type="submit" tone="primary" disabled={saving}>
        {saving ? 'Saving…' : 'Save notification settings'}
      </Button>
    </Card>
  );
}
