import type { NotificationRow } from '@rolelink/db/notifications';
import { blockedMessage, LINK_BLOCKED_REASONS, type LinkBlockedReason } from '@rolelink/domain';

/** Dashboard links are not known here (the worker has no dashboard URL): the message says where to look. */
const WHERE = 'Open the Role Link dashboard to act on it.';

/** A role as the platform renders a mention (the message sets allowed_mentions to none: nobody is pinged). */
const role = (r: NotificationRow) => (r.role_id ? `<@&${r.role_id}>` : 'a deleted role');

/**
 * One message for all pending rows of one kind in one guild: a burst folds into one (the first rows are
 * named, the rest counted), so the owner gets at most one message per kind per window.
 */
export function notificationMessage(kind: string, rows: readonly NotificationRow[]): string {
  const named = rows.slice(0, 5).map((r) => `• ${line(kind, r)}`);
  const more = rows.length > named.length ? [`• …and ${rows.length - named.length} more`] : [];
  return [heading(kind, rows.length), ...named, ...more, WHERE].join('\n').slice(0, 2000);
}

function heading(kind: string, n: number): string {
  switch (kind) {
    case 'removal_held':
      return n === 1
        ? 'Role Link held a large removal until you confirm it:'
        : `Role Link held ${n} large removals until you confirm them:`;
    case 'plugin_unhealthy':
      return n === 1
        ? 'A plugin server of a role link is unhealthy or unreachable:'
        : `${n} plugin server alerts of role links (unhealthy or unreachable):`;
    case 'plugin_recovered':
      return n === 1
        ? 'A plugin server of a role link is healthy again:'
        : `${n} plugin servers of role links are healthy again:`;
    case 'link_paused':
      return n === 1 ? 'A role link is paused:' : `${n} role links are paused:`;
    case 'events_dropped':
      return n === 1
        ? 'A plugin server did not take an event for 24 hours; Role Link gave up on it:'
        : `${n} events to plugin servers were given up after 24 hours of failed deliveries:`;
    default:
      return `Role Link: ${n} notification(s) of kind ${kind}:`;
  }
}

function line(kind: string, r: NotificationRow): string {
  const d = r.detail ?? {};
  if (kind === 'removal_held' && d.kind === 'admin_source')
    return `${role(r)}: ${String(d.removals)} member(s) would lose their only Administrator or Manage Server (held until you apply it)`;
  if (kind === 'removal_held')
    return `${role(r)}: ${String(d.previous)} → ${String(d.next)} users (${String(d.removals)} removals)`;
  // The plugin URL is the admin's own configuration; the status is the broker's check.
  if (kind === 'plugin_unhealthy' || kind === 'plugin_recovered')
    return `${role(r)}: ${String(d.plugin_url)} is ${String(d.status)}`;
  if (kind === 'events_dropped')
    return `${role(r)}: ${String(d.kind)} to ${String(d.plugin_url)} after ${String(d.attempts)} attempts (re-send it from the link's Events tab)`;
  // Why it paused: the plan's slots, the bot out of the server, or a role the bot may not change.
  // The state and reason are deriveLinkStatus's words, as on the card and in `rolelink link show`.
  if (kind === 'link_paused' && d.state === 'blocked')
    return `${role(r)}: ${
      LINK_BLOCKED_REASONS.includes(d.reason as LinkBlockedReason)
        ? blockedMessage(d.reason as LinkBlockedReason)
        : 'the bot may not change this role.'
    }`;
  if (kind === 'link_paused')
    return `${role(r)}: the server has more links than its plan allows (${String(d.plan)} plan, ${String(d.slot_allowance)} link slot(s))`;
  return role(r);
}
